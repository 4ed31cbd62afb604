import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  baselineFor,
  checkContractDocument,
  majorOf,
  SNAPSHOTS_DIR,
} from '../../scripts/contract-compat.ts';
import { API_VERSION, buildOpenApiDocument } from '../../src/openapi/document.ts';
import { serializeOpenApiDocument } from '../../src/openapi/serialize.ts';

// No version is written here: the code's (API_VERSION), its released baseline and the next major.
const BASELINE = baselineFor(API_VERSION) ?? `no snapshot for ${API_VERSION}`;
const NEXT_MAJOR = `${majorOf(API_VERSION) + 1}.0.0`;
const RELEASED = join(SNAPSHOTS_DIR, `${BASELINE}.json`);
const work = mkdtempSync(join(tmpdir(), 'plant-store-contract-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: edits below reach into an arbitrary JSON document
type Doc = any;
const generated = (): Doc => structuredClone(buildOpenApiDocument());

/** Checks an edited copy of the document the code generates against the snapshots. */
function checkEdited(edit: (doc: Doc) => void, snapshotsDir = SNAPSHOTS_DIR) {
  const doc = generated();
  edit(doc);
  return checkContractDocument(doc, snapshotsDir);
}

// The generated document's own check (and the accepted verdicts) runs in the unit tier:
// scripts/contract-compat.test.ts.
describe('the released contract', () => {
  it("keeps the baseline of the code's major version as a snapshot", () => {
    const released = JSON.parse(readFileSync(RELEASED, 'utf8'));
    expect(released.info.version).toBe(BASELINE);
    expect(released.paths['/plants'].post.operationId).toBe('createPlant');
  });
});

describe.concurrent('a deliberate breaking edit is caught', () => {
  const breakingEdits: [string, string, (doc: Doc) => void][] = [
    [
      'making a request field required',
      'required-properties-added',
      (doc) => doc.components.schemas.NewPlant.required.push('tag'),
    ],
    [
      'narrowing a type',
      'schema-type-changed',
      (doc) => {
        doc.components.schemas.NewPlant.properties.tag.type = 'integer';
      },
    ],
    [
      'narrowing a constraint',
      'schema-constraint-changed',
      (doc) => {
        doc.components.schemas.NewPlant.properties.name.maxLength = 50;
      },
    ],
    [
      'removing a status',
      'response-removed',
      (doc) => {
        delete doc.paths['/plants'].post.responses['409'];
      },
    ],
    [
      'removing a path',
      'path-removed',
      (doc) => {
        delete doc.paths['/plants'];
      },
    ],
  ];

  it.each(breakingEdits)(
    '%s (%s)',
    async (_what, ruleId, edit) => {
      const report = await checkEdited(edit);
      expect(report.ok).toBe(false);
      expect(report.breaking.map((change) => change.ruleId)).toContain(ruleId);
      expect(report.problems.join('\n')).toContain(`set info.version to ${NEXT_MAJOR}`);
    },
    60_000,
  );

  it('even with info.version raised to the next major, until its snapshot is added', async () => {
    const breakAndBump = (doc: Doc) => {
      delete doc.paths['/plants'].post.responses['409'];
      doc.info.version = NEXT_MAJOR;
    };
    const missing = await checkEdited(breakAndBump);
    expect(missing.ok).toBe(false);
    expect(missing.problems.join('\n')).toContain(`contract-snapshots/${NEXT_MAJOR}.json`);

    const snapshots = join(work, 'snapshots');
    mkdirSync(snapshots, { recursive: true });
    copyFileSync(RELEASED, join(snapshots, `${BASELINE}.json`));
    const doc = generated();
    breakAndBump(doc);
    writeFileSync(join(snapshots, `${NEXT_MAJOR}.json`), serializeOpenApiDocument(doc));
    const released = await checkEdited(breakAndBump, snapshots);
    expect(released).toMatchObject({ ok: true, baseline: NEXT_MAJOR, breaking: [] });
  }, 60_000);

  it('and a version lower than a released major is refused', async () => {
    const snapshots = join(work, 'snapshots-2');
    mkdirSync(snapshots, { recursive: true });
    copyFileSync(RELEASED, join(snapshots, `${BASELINE}.json`));
    copyFileSync(RELEASED, join(snapshots, `${NEXT_MAJOR}.json`));
    const report = await checkEdited(() => {}, snapshots);
    expect(report.ok).toBe(false);
    expect(report.problems.join('\n')).toContain(`older than the released ${NEXT_MAJOR}`);
  });
});

describe('compatible changes pass', () => {
  it('adding an optional response field and a new documented status', async () => {
    const report = await checkEdited((doc) => {
      doc.components.schemas.Plant.properties.colour = { type: 'string' };
      doc.paths['/plants'].post.responses['422'] = {
        description: 'Unprocessable',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    });
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary?.minor).toBeGreaterThan(0);
  }, 60_000);
});

describe('accepted changes (contract-snapshots/accepted-changes.json)', () => {
  it('do not accept another value for the same rule, nor an entry that matches nothing', async () => {
    const other = await checkEdited((doc) => {
      doc.components.schemas.NewPlant.properties.name.pattern = '^[a-z]*$';
    });
    expect(other.ok).toBe(false);
    expect(other.breaking.map((change) => change.pointer)).toContain(
      '#/paths/~1plants/post/requestBody/content/application~1json/schema/properties/name',
    );
    expect(other.problems.join('\n')).toMatch(/no longer makes: `pattern` of `name`/);
  }, 60_000);
});
