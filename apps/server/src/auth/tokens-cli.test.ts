import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runCliInProcess } from '../../test/support/run-cli.ts';
import { digestToken } from './token-registry.ts';
import { runCli } from './tokens-cli.ts';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-cli-commands-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});

/** A fixed instant the tests that read the time set the clock to (only Date is faked). */
const NOW = new Date('2030-01-02T03:04:05.678Z');
const HOUR_MS = 3_600_000;

/** Runs the command in this process against `db`, collecting what it prints. */
const run = (db: string, ...args: string[]) => runWith(false, db, ...args);
/** `run`, with stderr a terminal (a person at the keyboard). */
const runOnTerminal = (db: string, ...args: string[]) => runWith(true, db, ...args);

async function runWith(isTTY: boolean, db: string, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY },
    env: { DATABASE_URL: db },
  });
  return { status, stdout, stderr };
}

describe('runCli', () => {
  it('explains mistakes with exit status 2 and refusals with 1, printing nothing on stdout', async () => {
    const db = join(folder, 'mistakes.db');
    expect((await run(db, 'tokens', 'create', '--name', 'acme')).status).toBe(0);
    const cases: [string[], number, RegExp][] = [
      [[], 2, /no command given/],
      [['plants'], 2, /unknown command "plants"/],
      [['tokens'], 2, /tokens needs a command/],
      [['tokens', 'rotate'], 2, /unknown command "tokens rotate"/],
      [['tokens', 'create'], 2, /needs --name/],
      [['tokens', 'create', '--name'], 2, /argument missing/],
      [['tokens', 'create', '--name', '9lives'], 2, /starts with a letter/],
      [['tokens', 'create', '--name', 'x', '--expires', 'soon'], 2, /Invalid --expires/],
      [['tokens', 'create', '--name', 'x', '--expires', '0s'], 2, /must be > 0/],
      [['tokens', 'create', '--name', 'x', '--wheels', '4'], 2, /Unknown option '--wheels'/],
      [['tokens', 'create', '--name', 'x', 'extra'], 2, /Unexpected argument 'extra'/],
      [['tokens', 'list', 'all'], 2, /Unexpected argument 'all'/],
      [['tokens', 'revoke'], 2, /exactly one <id\|name>/],
      [['tokens', 'revoke', '1', '2'], 2, /exactly one <id\|name>/],
      [['tokens', 'revoke', 'env#1'], 2, /Not a token id or name/],
      [['tokens', 'create', '--name', 'acme'], 1, /"acme" is already active/],
      [['tokens', 'revoke', 'nobody'], 1, /no token with id or name "nobody"/],
      [['tokens', 'revoke', '42'], 1, /no token with id or name "42"/],
      [['backup'], 2, /backup needs exactly one <file>/],
      [['backup', 'a.db', 'b.db'], 2, /backup needs exactly one <file>/],
      [['backup', db], 1, /exists: a backup goes to a new file/],
      [['backup', '--check'], 2, /backup --check needs exactly one <file>/],
      [['backup', '--check', join(folder, 'none.db')], 1, /none\.db is not a usable backup/],
    ];
    for (const [args, status, message] of cases) {
      const result = await run(db, ...args);
      expect(result.status, args.join(' ')).toBe(status);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stdout, args.join(' ')).toBe('');
    }
  });

  it('backs up the SQLite database into a new file and says what it copied', async () => {
    const db = join(folder, 'backed-up.db');
    expect((await run(db, 'tokens', 'create', '--name', 'acme')).status).toBe(0);
    const copy = join(folder, 'backup-copy.db');
    const result = await run(db, 'backup', copy);
    expect(result).toMatchObject({ status: 0, stderr: '' });
    expect(result.stdout).toMatch(
      new RegExp(
        `^Backed up ${db} \\(schema version \\d+, \\d+ pages, 0 plants, quick_check ok\\) to ${copy}\\n$`,
      ),
    );
    const checked = await run(db, 'backup', '--check', copy);
    expect(checked).toMatchObject({ status: 0, stderr: '' });
    expect(checked.stdout).toMatch(
      new RegExp(`^${copy}: quick_check ok, schema version \\d+, 0 plants\\n$`),
    );
    expect((await run(copy, 'tokens', 'list', '--json')).stdout).toContain('"name": "acme"');
  });

  it('prints the usage on request', async () => {
    for (const args of [['--help'], ['-h'], ['tokens', '--help']]) {
      const result = await run(join(folder, 'help.db'), ...args);
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/tokens create --name <consumer> \[--expires <duration>\]/);
      expect(result.stdout).toMatch(/tokens revoke <id\|name>/);
    }
  });

  it('prints the token alone for a script: nothing on stderr when it succeeds', async () => {
    const created = await run(join(folder, 'quiet.db'), 'tokens', 'create', '--name', 'ci');
    expect(created).toMatchObject({ status: 0, stderr: '' });
    expect(created.stdout).toMatch(/^pst_[A-Za-z0-9_-]{49}\n$/);
  });

  it('creates with an expiry, revokes by id, and says when a token was already revoked', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    const db = join(folder, 'flow.db');
    const created = await runOnTerminal(
      db,
      'tokens',
      'create',
      '--name',
      'acme',
      '--expires',
      '12h',
    );
    expect(created.stdout).toMatch(/^pst_[A-Za-z0-9_-]{49}\n$/);
    expect(created.stderr).toMatch(/^Created token 1 for "acme" in .*flow\.db, expires \S+Z\./);
    const expires = new Date(NOW.getTime() + 12 * HOUR_MS).toISOString();
    expect(created.stderr).toContain(`, expires ${expires}.\n`);

    const revoked = await run(db, 'tokens', 'revoke', '1');
    expect(revoked).toMatchObject({ status: 0, stderr: '' });
    expect(revoked.stdout).toMatch(
      /^Revoked token 1 "acme" at \S+Z; running servers refuse it within 3 s\.\n$/,
    );
    const again = await run(db, 'tokens', 'revoke', 'acme');
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^Token 1 "acme" was already revoked at \S+Z\.\n$/);
  });

  it('lists tokens without their values or digests, as a table or JSON', async () => {
    const db = join(folder, 'list.db');
    const first = (
      await run(db, 'tokens', 'create', '--name', 'acme', '--expires', '1d12h')
    ).stdout.trim();
    const second = (await run(db, 'tokens', 'create', '--name', 'globex')).stdout.trim();
    expect((await run(db, 'tokens', 'revoke', '2')).status).toBe(0);

    const table = await run(db, 'tokens', 'list');
    const json = await run(db, 'tokens', 'list', '--json');
    expect(table.status).toBe(0);
    expect(json.status).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+STATUS\s+CREATED\s+EXPIRES\s+REVOKED\n/);
    expect(table.stdout).toMatch(/\n1\s+acme\s+active\s+\S+Z\s+\S+Z\s+-\n/);
    expect(table.stdout).toMatch(/\n2\s+globex\s+revoked\s+\S+Z\s+never\s+\S+Z\n$/);
    const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(listed).toEqual([
      {
        id: 1,
        name: 'acme',
        status: 'active',
        createdAt: expect.stringMatching(/Z$/),
        expiresAt: expect.stringMatching(/Z$/),
        revokedAt: null,
      },
      {
        id: 2,
        name: 'globex',
        status: 'revoked',
        createdAt: expect.stringMatching(/Z$/),
        expiresAt: null,
        revokedAt: expect.stringMatching(/Z$/),
      },
    ]);
    for (const output of [table, json]) {
      for (const secret of [first, second]) {
        expect(secret).toMatch(/^pst_/);
        expect(output.stdout + output.stderr).not.toContain(secret);
        expect(output.stdout + output.stderr).not.toContain(digestToken(secret));
      }
      expect(output.stdout + output.stderr).not.toContain('pst_');
      expect(output.stdout + output.stderr).not.toMatch(/[0-9a-f]{64}/);
    }
  });

  it('shows a token as expired from the instant it expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    const db = join(folder, 'expired.db');
    expect((await run(db, 'tokens', 'create', '--name', 'old', '--expires', '1h')).status).toBe(0);
    vi.setSystemTime(NOW.getTime() + HOUR_MS - 1);
    expect((await run(db, 'tokens', 'list')).stdout).toMatch(/\n1\s+old\s+active\s/);
    vi.setSystemTime(NOW.getTime() + HOUR_MS);
    expect((await run(db, 'tokens', 'list')).stdout).toMatch(/\n1\s+old\s+expired\s/);
  });

  it('lists an empty store with a hint', async () => {
    const result = await run(join(folder, 'empty.db'), 'tokens', 'list');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^No tokens\. Create one with: plant-store tokens create/);
    expect(
      JSON.parse((await run(join(folder, 'empty.db'), 'tokens', 'list', '--json')).stdout),
    ).toEqual([]);
  });

  it('exits 2 with the usage for a mistake, and 1 for a store it cannot use', async () => {
    const usage = await runCliInProcess(['tokens', 'create', '--expires', '1d'], {
      DATABASE_URL: join(folder, 'usage.db'),
    });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/needs --name <consumer>[\s\S]*Usage: plant-store tokens/);
    expect(usage.stdout).toBe('');
    const badUrl = await runCliInProcess(['tokens', 'list'], { DATABASE_URL: 'mysql://db/x' });
    expect(badUrl.status).toBe(1);
    expect(badUrl.stderr).toMatch(/scheme "mysql:" is not supported/);
    // A database it cannot open: one line naming the file, why and what to do.
    const directory = await run(folder, 'tokens', 'list');
    expect(directory.status).toBe(1);
    expect(directory.stderr).toBe(
      `plant-store: Cannot open the SQLite database ${folder}: it is a directory. ` +
        `Set DATABASE_URL to a file, e.g. ${join(folder, 'plants.db')}.\n`,
    );
  });

  it('reports a configuration problem with exit status 1', async () => {
    let stderr = '';
    const status = await runCli(['tokens', 'list'], {
      stdout: { write: () => undefined },
      stderr: { write: (text: string) => (stderr += text) },
      env: { DATABASE_URL: '' },
    });
    expect(status).toBe(1);
    expect(stderr).toMatch(/DATABASE_URL: .*it is empty/);
  });
});
