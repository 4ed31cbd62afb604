import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/openapi/document.ts';
import { serializeOpenApiDocument } from '../src/openapi/serialize.ts';
import { checkContractCompatibility } from './contract-compat.ts';

// The breaking-change check in the unit tier: the document the code generates now (not only the
// committed file, so a schema change is judged before `pnpm openapi` is run) against the
// released snapshot, with `redocly diff` in a worker thread. The full matrix of breaking edits
// is in test/e2e/contract-compat.test.ts.

const work = mkdtempSync(join(tmpdir(), 'plant-store-contract-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: the edit reaches into an arbitrary JSON document
function generated(edit: (doc: any) => void = () => {}): string {
  const doc = JSON.parse(serializeOpenApiDocument(buildOpenApiDocument()));
  edit(doc);
  const file = join(work, `document-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

describe.concurrent('the contract check (`pnpm contract:check`), run by `pnpm test:unit`', () => {
  it('passes the generated document: every breaking-rated change is an accepted one', async () => {
    const report = await checkContractCompatibility(generated());
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ ok: true, baseline: '1.0.0', breaking: [] });
    expect(report.summary?.major).toBe(report.accepted?.length);
    expect(report.accepted?.map((change) => change.message).sort()).toEqual([
      "Lower bound of `id` was set to '>= -9223372036854776000'.",
      "Upper bound of `id` was set to '<= 9223372036854776000'.",
      "`pattern` of `name` was set to '^[^\\u0000-\\u001F\\u007F-\\u009F]*$'.",
      "`pattern` of `tag` was set to '^[^\\u0000-\\u001F\\u007F-\\u009F]*$'.",
    ]);
  });

  it('stops a breaking change with a message that says what broke and what to do', async () => {
    const report = await checkContractCompatibility(
      generated((doc) => doc.components.schemas.NewPlant.required.push('tag')),
    );
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      '1 breaking change(s) against the released 1.0.0:',
      expect.stringMatching(
        /^ {2}- .*`tag`.* \(required-properties-added, #\/paths\/~1plants\/post\/requestBody/,
      ),
      'Undo them, or release a new major: set info.version to 2.0.0 and add contract-snapshots/2.0.0.json (a copy of the document).',
    ]);
  });
});
