import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildOpenApiDocument } from './document.ts';
import { serializeOpenApiDocument, serializeOpenApiYaml } from './serialize.ts';

const bounds = { minimum: -(2n ** 63n), maximum: 2n ** 63n - 1n };
const LONG = `${'word '.repeat(40)}end`;

it('writes 2-space JSON, int64 bounds digit for digit, and a final newline', () => {
  expect(serializeOpenApiDocument({ id: bounds, tags: ['a'] })).toBe(
    '{\n  "id": {\n    "minimum": -9223372036854775808,\n    "maximum": 9223372036854775807\n  },\n  "tags": [\n    "a"\n  ]\n}\n',
  );
});

it('writes the same text for the same document, built twice', () => {
  const [first, second] = [buildOpenApiDocument(), buildOpenApiDocument()];
  expect(serializeOpenApiDocument(first)).toBe(serializeOpenApiDocument(second));
  expect(serializeOpenApiYaml(first)).toBe(serializeOpenApiYaml(second));
});

it('writes YAML with no anchor or alias and no folded line', () => {
  const shared = { type: 'string', description: LONG };
  const text = serializeOpenApiYaml({ a: shared, b: shared, id: bounds });
  expect(text).not.toMatch(/[&*]/);
  expect(text.split('\n')).toContain(`  description: ${LONG}`);
  expect(text).toContain('minimum: -9223372036854775808\n  maximum: 9223372036854775807\n');
  expect(parse(text, { intAsBigInt: true })).toEqual({ a: shared, b: shared, id: bounds });
});
