import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.ts';

// The `plant-store` entry in this process: the environment it is given names the store, read
// only by a command that opens it. The commands themselves: auth/tokens-cli.test.ts; the built
// binary as a process: test/e2e/cli.test.ts.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-cli-entry-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function run(args: string[], env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
  });
  return { status, stdout, stderr };
}

describe('runCli, as the program exports it', () => {
  it('prints its usage without reading the store settings (a bad DATABASE_URL too)', async () => {
    const help = await run(['--help'], { DATABASE_URL: 'mysql://db/plants' });
    expect(help).toMatchObject({ status: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: plant-store tokens create/);
  });

  it('refuses a bad DATABASE_URL of the environment it is given, naming it: exit 1', async () => {
    const list = await run(['tokens', 'list'], { DATABASE_URL: 'mysql://db/plants' });
    expect(list.status).toBe(1);
    expect(list.stderr).toMatch(/^plant-store: Invalid configuration: DATABASE_URL: .*mysql/);
    expect(list.stdout).toBe('');
  });

  it('works on the database DATABASE_URL names: a token made there is listed there', async () => {
    const env = { DATABASE_URL: join(folder, 'tokens.db'), NODE_ENV: 'production' };
    const created = await run(['tokens', 'create', '--name', 'acme'], env);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^[A-Za-z0-9_-]{16,}\n$/); // the token alone
    const listed = await run(['tokens', 'list'], env);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('acme');
    const elsewhere = await run(['tokens', 'list'], { DATABASE_URL: join(folder, 'other.db') });
    expect(elsewhere.stdout).not.toContain('acme');
  });

  it('answers a usage mistake with exit status 2 and the usage on stderr', async () => {
    const mistake = await run(['tokens', 'frobnicate'], {});
    expect(mistake.status).toBe(2);
    expect(mistake.stderr).toMatch(/unknown command "tokens frobnicate"[\s\S]*Usage:/);
  });
});
