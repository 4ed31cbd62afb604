import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  API_VERSION,
  buildOpenApiDocument,
  type OpenApiDocument,
} from '../src/openapi/document.ts';
import {
  baselineFor,
  checkContractDocument,
  majorOf,
  releasedVersions,
  SNAPSHOTS_DIR,
} from './contract-compat.ts';

// The breaking-change check in the unit tier: the document the code generates now (not the
// committed file, so a schema change is judged before `pnpm openapi` is run) against the
// released snapshot of its major version, with `redocly diff` in a worker thread. No version is
// written here: they come from the code (API_VERSION) and contract-snapshots/. The full matrix
// of breaking edits is in test/e2e/contract-compat.test.ts.

/** The generated document, edited as JSON. */
// biome-ignore lint/suspicious/noExplicitAny: the edit reaches into an arbitrary JSON document
function generated(edit: (doc: any) => void): OpenApiDocument {
  const doc = structuredClone(buildOpenApiDocument());
  edit(doc);
  return doc;
}

const baseline = baselineFor(API_VERSION);
const nextMajor = `${majorOf(API_VERSION) + 1}.0.0`;

describe('the released snapshots (contract-snapshots/)', () => {
  it("hold the baseline of the code's major version: the newest snapshot of that major", () => {
    expect(baseline, `no contract-snapshots/${API_VERSION}.json: add it`).toBeDefined();
    expect(existsSync(join(SNAPSHOTS_DIR, `${baseline}.json`))).toBe(true);
    expect(majorOf(baseline ?? '')).toBe(majorOf(API_VERSION));
    expect(
      releasedVersions()
        .filter((v) => majorOf(v) === majorOf(API_VERSION))
        .at(-1),
    ).toBe(baseline);
  });

  it('are ordered by version number, and a major has the newest of its own as baseline', () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-snapshots-'));
    try {
      for (const file of ['1.10.0.json', '1.9.0.json', '3.0.0.json', 'notes.json']) {
        writeFileSync(join(folder, file), '{}');
      }
      expect(releasedVersions(folder)).toEqual(['1.9.0', '1.10.0', '3.0.0']);
      expect(baselineFor('1.2.0', folder)).toBe('1.10.0');
      expect(baselineFor('3.1.0', folder)).toBe('3.0.0');
      expect(baselineFor('2.0.0', folder)).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe.concurrent('the contract check (`pnpm contract:check`), run by `pnpm test:unit`', () => {
  it('passes the generated document: every breaking-rated change is an accepted one', async () => {
    const report = await checkContractDocument();
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ ok: true, version: API_VERSION, baseline, breaking: [] });
    expect(report.summary?.major).toBe(report.accepted?.length);
  });

  it('stops a breaking change with a message that says what broke and what to do', async () => {
    const report = await checkContractDocument(
      generated((doc) => doc.components.schemas.NewPlant.required.push('tag')),
    );
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      `1 breaking change(s) against the released ${baseline}:`,
      expect.stringMatching(
        /^ {2}- .*`tag`.* \(required-properties-added, #\/paths\/~1plants\/post\/requestBody/,
      ),
      `Undo them, or release a new major: set info.version to ${nextMajor} and add ` +
        `contract-snapshots/${nextMajor}.json (a copy of openapi.json after \`pnpm openapi\`).`,
    ]);
  });

  it('stops a new major version until its snapshot is added', async () => {
    const report = await checkContractDocument(
      generated((doc) => {
        doc.info.version = nextMajor;
      }),
    );
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      expect.stringContaining(
        `copy openapi.json (after \`pnpm openapi\`) to contract-snapshots/${nextMajor}.json`,
      ),
    ]);
  });
});
