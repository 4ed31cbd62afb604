import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_CREDENTIAL_MESSAGE } from '../../src/config.ts';
import { serverEntry } from '../support/server-entry.ts';

// Starts the configuration refuses, as real processes: one line on stderr, nothing on stdout,
// exit status 1, and nothing made on disk (no development token, no empty database).

const APP_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'plant-store-refusals-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs the entry point with `env` added to a minimal environment, until it exits. */
function run(env: Record<string, string>) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [serverEntry('main')],
      {
        cwd: APP_ROOT,
        env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
        timeout: 15_000,
        killSignal: 'SIGKILL', // a server that started after all is stopped at once
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}

describe('a start refused by the configuration', () => {
  it('of a mistyped NODE_ENV names the accepted values, and makes no development token', async () => {
    const data = join(folder, 'typo', 'data');
    const { status, stdout, stderr } = await run({
      NODE_ENV: 'prod',
      DATABASE_URL: join(data, 'plants.db'),
    });
    expect(status).toBe(1);
    expect(stderr).toBe(
      'plant-store: Invalid configuration: NODE_ENV: "prod" is not one of development, test, production (unset means development)\n',
    );
    expect(stdout).toBe('');
    expect(existsSync(join(folder, 'typo'))).toBe(false); // no data directory, no dev-token
  });

  it('of production without a credential leaves no database file behind', async () => {
    const data = join(folder, 'production');
    const { status, stdout, stderr } = await run({
      NODE_ENV: 'production',
      DATABASE_URL: join(data, 'plants.db'),
    });
    expect(status).toBe(1);
    expect(stderr).toBe(`plant-store: ${NO_CREDENTIAL_MESSAGE}\n`);
    expect(stdout).toBe('');
    expect(existsSync(data)).toBe(false);
    // Also with its directory already there: nothing is created in it.
    const existing = join(folder, 'existing');
    rmSync(existing, { recursive: true, force: true });
    mkdirSync(existing);
    const again = await run({ NODE_ENV: 'production', DATABASE_URL: `file:${existing}/plants.db` });
    expect(again.status).toBe(1);
    expect(readdirSync(existing)).toEqual([]);
  });

  it('of a number in hex names the variable, the value and the range', async () => {
    const { status, stdout, stderr } = await run({ PORT: '0x1000' });
    expect(status).toBe(1);
    expect(stderr).toBe(
      'plant-store: Invalid configuration: PORT: "0x1000" is not a whole number from 0 to 65535 (decimal digits only)\n',
    );
    expect(stdout).toBe('');
  });
});
