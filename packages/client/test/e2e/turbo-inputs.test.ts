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
// re-runs the type check (one program over every package, the root's `//#typecheck`) and every
// test of the packages that import it, and a change to the repository's files outside the
// packages (docs/, README.md, deploy/, ...) re-runs every test. Proved on a copy of the
// repository's files: `turbo run --dry=json` prints each task's hash without running it; a file
// is edited in the copy and the hashes are compared.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const TURBO = join(ROOT, 'node_modules/turbo/bin/turbo');
const CHECKS = ['typecheck', 'test:unit', 'test:e2e'];
const SCHEMA = '@plant-store/schema';
const SERVER = '@plant-store/server';
const CLIENT = '@plant-store/client';
const BENCH = '@plant-store/bench';
/** The type check: the root's task, one program over every package. */
const TYPECHECK = '//#typecheck';

let copy: string;
let before: Map<string, string>;

/** Every task id (`package#task`) of `tasks` (the checks by default) in the copy, with its hash. */
function hashes(tasks: readonly string[] = CHECKS): Map<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('TURBO_')),
  );
  const out = execFileSync(process.execPath, [TURBO, 'run', ...tasks, '--dry=json'], {
    cwd: copy,
    encoding: 'utf8',
    env: { ...env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const { tasks: listed } = JSON.parse(out) as {
    tasks: { taskId: string; task: string; hash: string }[];
  };
  return new Map(listed.filter((t) => tasks.includes(t.task)).map((t) => [t.taskId, t.hash]));
}

/**
 * The task ids (of the checks, or of `tasks`) whose hash differs from the untouched copy's once
 * `text` is appended to `file`.
 */
function changedBy(file: string, text: string, tasks?: readonly string[]): string[] {
  const was = tasks === undefined ? before : hashes(tasks);
  const path = join(copy, file);
  const original = readFileSync(path, 'utf8');
  appendFileSync(path, text);
  try {
    const after = hashes(tasks);
    return [...was.keys()].filter((id) => after.get(id) !== was.get(id)).sort();
  } finally {
    writeFileSync(path, original);
  }
}

/** The tests (both tiers) of `packages`. */
const testsOf = (...packages: string[]) =>
  packages.flatMap((name) => [`${name}#test:e2e`, `${name}#test:unit`]).sort();
/** The tests (both tiers) of every package. */
const TESTS = testsOf(SCHEMA, SERVER, CLIENT, BENCH);
/** Every check: the type check and every test. */
const EVERY_CHECK = [TYPECHECK, ...TESTS].sort();

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
  it('lists the type check and the tests of every package', () => {
    expect([...before.keys()].sort()).toEqual(EVERY_CHECK);
  });

  it('a schema source file: every check (every package imports the schema)', () => {
    expect(changedBy('packages/schema/src/index.ts', '\n// touched\n')).toEqual(EVERY_CHECK);
  });

  it("a server source file: the type check, the server's, the client's and the bench's tests, not the schema's", () => {
    expect(changedBy('apps/server/src/config.ts', '\n// touched\n')).toEqual(
      [TYPECHECK, ...testsOf(SERVER, CLIENT, BENCH)].sort(),
    );
  });

  it("a client source file: the type check, the client's tests and the server's (the docs' blocks use the client; the libraries table is checked against its imports)", () => {
    expect(changedBy('packages/client/src/index.ts', '\n// touched\n')).toEqual(
      [TYPECHECK, ...testsOf(CLIENT, SERVER)].sort(),
    );
  });

  it.each([
    'packages/schema/test/e2e/openapi-lint.test.ts',
    'packages/schema/scripts/write-openapi.ts',
    'packages/schema/tsup.config.ts',
    'apps/server/test/support/index.ts',
    'apps/server/scripts/docs/write-docs-site.ts',
    'bench/src/run.ts',
    'bench/vitest.config.ts',
    'tsconfig.json',
  ])('%s (read by the type check): the type check, and the tests that read it', (file) => {
    expect(changedBy(file, '\n// touched\n')).toContain(TYPECHECK);
  });

  it("a schema source file: the server's and the client's builds too (they bundle or read its sources)", () => {
    expect(changedBy('packages/schema/src/index.ts', '\n// touched\n', ['build'])).toEqual(
      expect.arrayContaining([`${SCHEMA}#build`, `${SERVER}#build`, `${CLIENT}#build`]),
    );
  });

  it("a package's README: every test of every package, not the type check", () => {
    expect(changedBy('packages/client/README.md', '\n')).toEqual(TESTS);
  });

  it.each(['docs/api.md', 'README.md', 'deploy/nginx.conf', '.changeset/config.json', '.ci/run'])(
    '%s (outside every package): every test of every package',
    (file) => {
      expect(changedBy(file, '\n')).toEqual(TESTS);
    },
  );

  it('tsconfig.base.json: every check', () => {
    expect(changedBy('tsconfig.base.json', '\n')).toEqual(EVERY_CHECK);
  });

  it("test-support/ (the tests' shared helpers, type-checked with the tests): every check", () => {
    expect(changedBy('test-support/recipes.ts', '\n')).toEqual(EVERY_CHECK);
  });
});
