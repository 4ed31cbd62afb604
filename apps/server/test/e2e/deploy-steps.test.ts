import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { serverEntry } from '../support/server-entry.ts';
import { spawnServer } from '../support/spawn-server.ts';

// docs/deployment.md's systemd steps, run in the order written, on a temporary root folder:
// there is no systemd here and the machine's users stay as they are, so the service user is an
// unprivileged uid (nobody), `install` and `cp` run for real under the temporary root, the
// tokens CLI and the server run as that uid (this run's build, standing in for the copied artifact),
// and "systemctl enable --now" starts the server with the installed unit's settings.

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const APP_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVICE_USER = { uid: 65534, gid: 65534 };
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

/** The commands between the `systemd-steps` markers of docs/deployment.md. */
function documentedSteps(): string[] {
  const doc = read('docs/deployment.md');
  const block = /<!-- systemd-steps:start -->\n```sh\n([\s\S]*?)```\n<!-- systemd-steps:end -->/;
  const text = block.exec(doc)?.[1];
  if (text === undefined) throw new Error('docs/deployment.md has no systemd-steps block');
  return text.split('\n').filter((line) => line.trim() !== '');
}

function run(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; user?: typeof SERVICE_USER } = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      {
        cwd: APP_ROOT,
        env: { PATH: process.env.PATH ?? '', ...options.env },
        timeout: 30_000,
        ...options.user,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : (error as { code?: unknown }).code;
        resolve({ status: typeof code === 'number' ? code : -1, stdout, stderr });
      },
    );
  });
}

/** A machine in a folder: /etc/systemd/system, /var/lib and /opt as root leaves them (0755). */
function temporaryRoot(): { path: (absolute: string) => string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'plant-store-deploy-'));
  chmodSync(root, 0o755);
  for (const folder of ['etc/systemd/system', 'var/lib', 'opt']) {
    mkdirSync(join(root, folder), { recursive: true, mode: 0o755 });
  }
  return {
    path: (absolute) => join(root, absolute),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** `KEY=value` settings of a unit file's `Environment=` lines. */
function unitEnvironment(unit: string): Record<string, string> {
  const settings = [...unit.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)];
  return Object.fromEntries(settings.map((match) => [match[1] ?? '', match[2] ?? '']));
}

/** A root command's arguments under the temporary root: paths moved, `plant-store` → its ids. */
function underRoot(args: readonly string[], inRoot: (word: string) => string): string[] {
  return args.map((word, index) => {
    const flag = args[index - 1];
    if (word === 'plant-store' && (flag === '-o' || flag === '-g')) {
      return String(flag === '-o' ? SERVICE_USER.uid : SERVICE_USER.gid);
    }
    return word.startsWith('deploy/') ? join(REPO, word) : inRoot(word);
  });
}

interface Outcome {
  readonly step: string;
  readonly status: number;
  readonly output: string;
}

/**
 * Runs `steps` in order under a temporary root; stops at the first failing one. Each step is
 * `sudo …` (as root) or `sudo -u plant-store …` (as the service user).
 */
async function runSteps(steps: readonly string[]): Promise<Outcome[]> {
  const root = temporaryRoot();
  const inRoot = (word: string) => (word.startsWith('/') ? root.path(word) : word);
  const outcomes: Outcome[] = [];
  let token = '';
  try {
    for (const step of steps) {
      const words = step.split(/\s+/);
      expect(words[0], step).toBe('sudo');
      const asService = words[1] === '-u';
      if (asService) expect(words[2], step).toBe('plant-store');
      const [command = '', ...args] = words.slice(asService ? 3 : 1);
      let result: { status: number; stdout: string; stderr: string };
      if (command === 'useradd') {
        // The user is simulated (uid 65534); a --system user gets no home folder made.
        expect(args, step).toContain('--system');
        expect(args.at(-1), step).toBe('plant-store');
        expect(args).not.toContain('--create-home');
        result = { status: 0, stdout: '', stderr: '' };
      } else if (command === 'install' || (command === 'cp' && args[0] !== '-r')) {
        result = await run(command, underRoot(args, inRoot));
      } else if (command === 'cp') {
        // The artifact copy (`cp -r out/server /opt/plant-store`): the source stands in for it.
        mkdirSync(inRoot(args[2] ?? ''), { recursive: true });
        result = { status: 0, stdout: '', stderr: '' };
      } else if (command === 'systemctl' && args[0] === 'daemon-reload') {
        result = { status: 0, stdout: '', stderr: '' };
      } else if (command === 'env') {
        expect(asService, step).toBe(true);
        const settings = args.filter((word) => /^[A-Z_]+=/.test(word));
        const env = Object.fromEntries(
          settings.map((word) => {
            const [key = '', value = ''] = word.split(/=(.*)/);
            return [key, inRoot(value)];
          }),
        );
        const rest = args.slice(settings.length);
        expect(rest.slice(0, 2), step).toEqual(['node', '/opt/plant-store/dist/cli.js']);
        const cliArgs = rest.slice(2).map((word) => (word === '<consumer>' ? 'acme' : word));
        result = await run(process.execPath, [serverEntry('cli'), ...cliArgs], {
          env,
          user: SERVICE_USER,
        });
        token = result.stdout.trim();
      } else if (command === 'systemctl' && args.join(' ') === 'enable --now plant-store') {
        result = await startUnit(
          root.path('/etc/systemd/system/plant-store.service'),
          inRoot,
          token,
        );
      } else {
        throw new Error(`a step this test does not know how to run: ${step}`);
      }
      outcomes.push({ step, status: result.status, output: result.stdout + result.stderr });
      if (result.status !== 0) break;
    }
  } finally {
    root.remove();
  }
  return outcomes;
}

/**
 * What `systemctl start` does with the installed unit, as far as it matters here: the server
 * as the unit's user with the unit's settings (PORT: a free one). Then it must answer /readyz
 * and create a plant with the token, and stop with status 0 on SIGTERM.
 */
async function startUnit(unitPath: string, inRoot: (word: string) => string, token: string) {
  const unit = readFileSync(unitPath, 'utf8');
  expect(unit).toMatch(/^User=plant-store$/m);
  const env = Object.fromEntries(
    Object.entries(unitEnvironment(unit)).map(([key, value]) => [key, inRoot(value)]),
  );
  const server = spawnServer({ ...env, PORT: String(await freePort()) }, { user: SERVICE_USER });
  try {
    const url = await server.ready;
    const ready = await fetch(`${url}/readyz`);
    const created = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: 'Monstera' }),
    });
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    const ok = ready.status === 200 && created.status === 200 && exit === 0;
    return {
      status: ok ? 0 : 1,
      stdout: `readyz ${ready.status}, POST /plants ${created.status}, exit ${exit}`,
      stderr: server.output(),
    };
  } catch (error) {
    server.child.kill('SIGKILL');
    await server.exited;
    return { status: 1, stdout: '', stderr: `${error}` };
  }
}

const isRoot = process.getuid?.() === 0;
if (!isRoot)
  console.warn('Skipping the deployment steps test: it must run as root to drop to a service uid');

describe.runIf(isRoot)('the systemd steps of docs/deployment.md, in order', () => {
  const steps = documentedSteps();

  it('are the steps the unit file lists', () => {
    const listed = read('deploy/plant-store.service')
      .split('\n')
      .filter((line) => line.startsWith('#   sudo '))
      .map((line) => line.slice('#   '.length));
    expect(listed).toEqual(steps);
  });

  it('run as written: the token is issued as the service user, then the service starts', async () => {
    const outcomes = await runSteps(steps);
    for (const outcome of outcomes) expect(outcome, outcome.step).toMatchObject({ status: 0 });
    expect(outcomes.map((outcome) => outcome.step)).toEqual(steps);
    const state = outcomes.find((outcome) => outcome.step.includes('install -d'));
    expect(state).toBeDefined();
  }, 120_000);

  it('fail in the order of before (no state folder before the token): EACCES, so the service could never start', async () => {
    const before = steps.filter((step) => !step.includes('install -d'));
    const outcomes = await runSteps(before);
    const failed = outcomes.at(-1);
    expect(failed?.step).toContain('tokens create');
    expect(failed?.status).not.toBe(0);
    expect(failed?.output).toMatch(/EACCES|permission denied/i);
  }, 120_000);

  it('leave the state folder owned by the service user, mode 0700, as StateDirectory= would', async () => {
    const root = temporaryRoot();
    try {
      const install = steps.find((step) => step.includes('install -d')) ?? '';
      const args = underRoot(install.split(/\s+/).slice(2), (word) =>
        word.startsWith('/') ? root.path(word) : word,
      );
      expect((await run('install', args)).status).toBe(0);
      const folder = statSync(root.path('/var/lib/plant-store'));
      expect(folder.uid).toBe(SERVICE_USER.uid);
      expect(folder.mode & 0o777).toBe(0o700);
      expect(read('deploy/plant-store.service')).toMatch(/^StateDirectoryMode=0700$/m);
    } finally {
      root.remove();
    }
  });
});
