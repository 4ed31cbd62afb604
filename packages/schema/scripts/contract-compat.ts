import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildOpenApiDocument, type OpenApiDocument } from '../src/openapi/document.ts';
import { serializeOpenApiDocument } from '../src/openapi/serialize.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where released contracts are kept: `<version>.json`, the document as released. */
export const SNAPSHOTS_DIR = join(PACKAGE_ROOT, 'contract-snapshots');
const SNAPSHOT_FILE = /^(\d+)\.(\d+)\.(\d+)\.json$/;
// The @redocly/cli devDependency's entry point (its package.json `bin`).
const REDOCLY_CLI = join(PACKAGE_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

/** One change `redocly diff` rates as breaking (a major bump). */
export interface BreakingChange {
  readonly pointer: string;
  readonly ruleId: string;
  readonly message: string;
}

/**
 * A change `redocly diff` rates as breaking that was reviewed and accepted for a baseline: it
 * corrects the document to what that released version already enforced, so no request that
 * version accepted is refused now. Kept in `contract-snapshots/accepted-changes.json`, keyed by
 * baseline version; it matches one verdict exactly (pointer, rule and message).
 */
export interface AcceptedChange extends BreakingChange {
  /** Why it does not break any consumer, for a reviewer. */
  readonly reason: string;
}
const ACCEPTED_FILE = 'accepted-changes.json';

export interface CompatibilityReport {
  /** True when the document may be published: no breaking change against its baseline. */
  readonly ok: boolean;
  readonly version: string;
  /** The released snapshot the document was compared with, if any. */
  readonly baseline?: string;
  readonly summary?: { readonly major: number; readonly minor: number; readonly patch: number };
  readonly breaking: readonly BreakingChange[];
  /** Breaking-rated changes listed in `accepted-changes.json` for the baseline. */
  readonly accepted?: readonly AcceptedChange[];
  /** Why the document may not be published, for a person to read. */
  readonly problems: readonly string[];
}

interface RedoclyDiffReport {
  summary: { major: number; minor: number; patch: number };
  changes: {
    path: string;
    impact: string;
    verdicts?: { ruleId: string; impact: string; message?: string }[];
  }[];
}

/**
 * Checks the document the code generates now (by default), not the committed openapi.json: a
 * breaking change to the schema fails here before `pnpm openapi` regenerates the file. What
 * `pnpm contract:check` runs; see `checkContractCompatibility` for the rules.
 *
 * @example
 * const report = await checkContractDocument();
 * if (!report.ok) console.error(report.problems.join('\n'));
 */
export async function checkContractDocument(
  document: OpenApiDocument = buildOpenApiDocument(),
  snapshotsDir: string = SNAPSHOTS_DIR,
): Promise<CompatibilityReport> {
  // `redocly diff` reads files: the document goes to a temporary one.
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-contract-'));
  try {
    const file = join(folder, 'openapi.json');
    writeFileSync(file, serializeOpenApiDocument(document));
    return await checkContractCompatibility(file, snapshotsDir);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The released snapshot a document of `version` is compared with: the newest snapshot of the
 * same major version, or undefined when that major has none yet.
 */
export function baselineFor(version: string, snapshotsDir: string = SNAPSHOTS_DIR) {
  return releasedVersions(snapshotsDir)
    .filter((released) => majorOf(released) === majorOf(version))
    .at(-1);
}

/** The versions of the released snapshots in `snapshotsDir`, oldest first. */
export function releasedVersions(snapshotsDir: string = SNAPSHOTS_DIR): string[] {
  return readdirSync(snapshotsDir)
    .filter((file) => SNAPSHOT_FILE.test(file))
    .map((file) => file.replace(/\.json$/, ''))
    .sort(compareVersions);
}

/**
 * Checks that `documentFile` does not break the released contract: it is compared with the
 * newest snapshot of the same major version using Redocly CLI's `diff` (which rates every
 * change by the semver bump it needs), and any change rated major is a failure. A breaking
 * change is published by raising `info.version` to a new major and adding that version's
 * snapshot, which then becomes the baseline.
 *
 * @example
 * const report = await checkContractCompatibility('openapi.json');
 * if (!report.ok) console.error(report.problems.join('\n'));
 */
export async function checkContractCompatibility(
  documentFile: string,
  snapshotsDir: string = SNAPSHOTS_DIR,
): Promise<CompatibilityReport> {
  const document = JSON.parse(readFileSync(documentFile, 'utf8')) as { info: { version: string } };
  const version = document.info.version;
  const major = majorOf(version);
  const newest = releasedVersions(snapshotsDir).at(-1);
  const baseline = baselineFor(version, snapshotsDir);
  if (newest && major < majorOf(newest)) {
    return refuse(version, [
      `info.version ${version} is older than the released ${newest}: raise it.`,
    ]);
  }
  if (!baseline) {
    return refuse(version, [
      `info.version ${version} starts major version ${major}, which has no snapshot: copy ` +
        `openapi.json (after \`pnpm openapi\`) to contract-snapshots/${version}.json to release it.`,
    ]);
  }
  const report = await redoclyDiff(join(snapshotsDir, `${baseline}.json`), documentFile);
  const rated = report.changes
    .filter((change) => change.impact === 'major')
    .flatMap((change) =>
      (change.verdicts ?? [])
        .filter((verdict) => verdict.impact === 'major')
        .map((verdict) => ({
          pointer: change.path,
          ruleId: verdict.ruleId,
          message: verdict.message ?? `${change.path}: ${verdict.ruleId}`,
        })),
    );
  const acceptable = readAccepted(snapshotsDir, baseline);
  const isAccepted = (change: BreakingChange) =>
    acceptable.some((entry) => sameChange(entry, change));
  const breaking = rated.filter((change) => !isAccepted(change));
  const accepted = acceptable.filter((entry) => rated.some((change) => sameChange(entry, change)));
  const stale = acceptable.filter((entry) => !accepted.includes(entry));
  const problems = [
    ...(breaking.length === 0
      ? []
      : [
          `${breaking.length} breaking change(s) against the released ${baseline}:`,
          ...breaking.map(
            (change) => `  - ${change.message} (${change.ruleId}, ${change.pointer})`,
          ),
          `Undo them, or release a new major: set info.version to ${major + 1}.0.0 and add ` +
            `contract-snapshots/${major + 1}.0.0.json (a copy of openapi.json after \`pnpm openapi\`).`,
        ]),
    ...stale.map(
      (entry) =>
        `${ACCEPTED_FILE} accepts a change the document no longer makes: ${entry.message} ` +
        `(${entry.ruleId}, ${entry.pointer}); remove the entry.`,
    ),
  ];
  return {
    ok: problems.length === 0,
    version,
    baseline,
    summary: report.summary,
    breaking,
    accepted,
    problems,
  };
}

function readAccepted(snapshotsDir: string, baseline: string): AcceptedChange[] {
  const file = join(snapshotsDir, ACCEPTED_FILE);
  if (!existsSync(file)) return [];
  const byBaseline = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return (byBaseline[baseline] ?? []) as AcceptedChange[];
}

function sameChange(a: BreakingChange, b: BreakingChange): boolean {
  return a.pointer === b.pointer && a.ruleId === b.ruleId && a.message === b.message;
}

function refuse(version: string, problems: string[]): CompatibilityReport {
  return { ok: false, version, breaking: [], problems };
}

/**
 * `redocly diff --format json` of two documents, run in a worker thread of this process (no
 * child process, so the unit tier can run it: ~0.3 s). The CLI's own entry point is the only
 * interface Redocly offers for `diff`; its stdout is the JSON report.
 */
function redoclyDiff(base: string, revision: string): Promise<RedoclyDiffReport> {
  const worker = new Worker(REDOCLY_CLI, {
    argv: ['diff', base, revision, '--format', 'json', '--fail-on', 'none'],
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' },
    stdout: true,
    stderr: true,
  });
  let stdout = '';
  let stderr = '';
  worker.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  worker.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('exit', (code) => {
      try {
        resolve(JSON.parse(stdout) as RedoclyDiffReport);
      } catch {
        reject(new Error(`redocly diff ${base} ${revision} failed (exit ${code}): ${stderr}`));
      }
    });
  });
}

/** The major version of a `x.y.z` version. */
export function majorOf(version: string): number {
  return Number.parseInt(version.split('.')[0] ?? '', 10);
}

function compareVersions(a: string, b: string): number {
  const [pa, pb] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) {
    const difference = (pa?.[i] ?? 0) - (pb?.[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
