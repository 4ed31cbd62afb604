import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// turbo.json's promise: turbo never replays a stale result. A change to a workspace package
// re-runs every check of the packages that import it, and a change to the repository's files
// outside the packages (docs/, README.md, deploy/, ...) re-runs every test. Proved on a copy of
// the repository's files: `turbo run --dry=json` prints each task's hash without running it;
// a file is edited in the copy and the hashes are compared.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const TURBO = join(ROOT, 'node_modules/turbo/bin/turbo');
const CHECKS = ['typecheck', 'test:unit', 'test:e2e'];
const SCHEMA = '@plant-store/schema';
const SERVER = '@plant-store/server';
const CLIENT = '@plant-store/client';
const BENCH = '@plant-store/bench';

let copy: string;
let before: Map<string, string>;

/** Every task id (`package#task`) of the checks in the copy, with its hash. */
function hashes(): Map<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('TURBO_')),
  );
  const out = execFileSync(process.execPath, [TURBO, 'run', ...CHECKS, '--dry=json'], {
    cwd: copy,
    encoding: 'utf8',
    env: { ...env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const { tasks } = JSON.parse(out) as { tasks: { taskId: string; task: string; hash: string }[] };
  return new Map(tasks.filter((t) => CHECKS.includes(t.task)).map((t) => [t.taskId, t.hash]));
}

/** The task ids whose hash differs from the untouched copy's once `text` is appended to `file`. */
function changedBy(file: string, text: string): string[] {
  const path = join(copy, file);
  const original = readFileSync(path, 'utf8');
  appendFileSync(path, text);
  try {
    const after = hashes();
    return [...before.keys()].filter((id) => after.get(id) !== before.get(id)).sort();
  } finally {
    writeFileSync(path, original);
  }
}

const tasksOf = (...packages: string[]) =>
  packages.flatMap((name) => CHECKS.map((task) => `${name}#${task}`)).sort();
/** The tests (both tiers) of every package. */
const TESTS = [SCHEMA, SERVER, CLIENT, BENCH]
  .flatMap((name) => [`${name}#test:e2e`, `${name}#test:unit`])
  .sort();

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'plant-store-turbo-'));
  const files = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  for (const file of files.split('\0').filter(Boolean)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  before = hashes();
});

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('turbo.json: a change re-runs every check that depends on it', () => {
  it('lists the checks of every package', () => {
    expect([...before.keys()].sort()).toEqual(tasksOf(SCHEMA, SERVER, CLIENT, BENCH));
  });

  it('a schema source file: every check of every package (they all import the schema)', () => {
    expect(changedBy('packages/schema/src/index.ts', '\n// touched\n')).toEqual(
      tasksOf(SCHEMA, SERVER, CLIENT, BENCH),
    );
  });

  it("a server source file: the server's, the client's and the bench's checks, not the schema's", () => {
    expect(changedBy('apps/server/src/config.ts', '\n// touched\n')).toEqual(
      tasksOf(SERVER, CLIENT, BENCH),
    );
  });

  it("a client source file: the client's checks, and the server's e2e tier (the docs' blocks use the client)", () => {
    expect(changedBy('packages/client/src/index.ts', '\n// touched\n')).toEqual(
      [...tasksOf(CLIENT), `${SERVER}#test:e2e`].sort(),
    );
  });

  it("a package's README: every test of every package, and that package's type-check", () => {
    expect(changedBy('packages/client/README.md', '\n')).toEqual(
      [...TESTS, `${CLIENT}#typecheck`].sort(),
    );
  });

  it.each(['docs/api.md', 'README.md', 'deploy/nginx.conf', '.changeset/config.json', '.ci/run'])(
    '%s (outside every package): every test of every package',
    (file) => {
      expect(changedBy(file, '\n')).toEqual(TESTS);
    },
  );

  it('tsconfig.base.json: every check of every package', () => {
    expect(changedBy('tsconfig.base.json', '\n')).toEqual(tasksOf(SCHEMA, SERVER, CLIENT, BENCH));
  });

  it("test-support/ (the tests' shared helpers, type-checked with the tests): every check of every package", () => {
    expect(changedBy('test-support/recipes.ts', '\n')).toEqual(
      tasksOf(SCHEMA, SERVER, CLIENT, BENCH),
    );
  });
});
