import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// The client reads every response body with JSON.parse (client.ts, errors.ts): exact only while
// no response schema of the contract holds an int64. Were one added, this fails: read that
// body with `parseJson` from `@plant-store/schema` instead (it adds to the browser bundle).
const DOCUMENT = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@plant-store/schema/openapi.json'), 'utf8'),
) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

/** Every `format` in `node`, `$ref`s followed within the document. */
function formatsIn(node: unknown, seen = new Set<string>()): string[] {
  if (Array.isArray(node)) return node.flatMap((item) => formatsIn(item, seen));
  if (node === null || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  if (typeof record.$ref === 'string') {
    if (seen.has(record.$ref)) return [];
    seen.add(record.$ref);
    const target = record.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], DOCUMENT);
    return formatsIn(target, seen);
  }
  return [
    ...(typeof record.format === 'string' ? [record.format] : []),
    ...Object.values(record).flatMap((value) => formatsIn(value, seen)),
  ];
}

describe('the response bodies of the contract', () => {
  const responses = Object.values(DOCUMENT.paths).flatMap((item) =>
    Object.values(item).flatMap((operation) => Object.values(operation.responses)),
  );

  it('hold no int64, so JSON.parse reads them exactly', () => {
    expect(responses.length).toBeGreaterThan(10);
    const formats = formatsIn(responses);
    expect(formats).toContain('int32');
    expect(formats).not.toContain('int64');
  });

  it('and the check sees an int64 where there is one (a request body)', () => {
    const requests = Object.values(DOCUMENT.paths).flatMap((item) =>
      Object.values(item).map((operation) => (operation as { requestBody?: unknown }).requestBody),
    );
    expect(formatsIn(requests)).toContain('int64');
  });
});
