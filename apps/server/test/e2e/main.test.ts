import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCreate } from '../support/own-connection.ts';
import { runCliProcess } from '../support/run-cli.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// The real entry point as a process: startup output, configuration errors, signals, restarts.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-main-'));
const token = 'main-test-token-0123456789abcdef';
const started: SpawnedServer[] = [];
afterAll(() => {
  for (const server of started) server.child.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

function start(env: Record<string, string>): SpawnedServer {
  const server = spawnServer({ PORT: '0', ...env });
  started.push(server);
  return server;
}

const create = (url: string, body: string, bearer = token) =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body,
  });

/**
 * A request in flight: sends the headers with `Expect: 100-continue`, and once the server has
 * answered `100 Continue` (so the process has the request) half the body; then awaits
 * `midway()` and sends the rest.
 */
function slowCreate(url: string, body: string, midway: () => Promise<void>) {
  const { request, answer } = startCreate(url, token, body, {
    headers: { expect: '100-continue' },
  });
  request.on('continue', () => {
    const half = Math.floor(body.length / 2);
    request.write(body.slice(0, half));
    // A failed `midway` fails the answer.
    midway().then(
      () => request.end(body.slice(half)),
      (error: Error) => request.destroy(error),
    );
  });
  request.flushHeaders();
  return answer;
}

describe('the server process', () => {
  it('prints the development token kept in the data directory and a curl command that works, outside production', async () => {
    const data = join(folder, 'dev-data');
    const database = join(data, 'dev.db');
    const tokenOf = (output: string) => /Bearer ([A-Za-z0-9_-]{43})'/.exec(output)?.[1];
    const first = start({ DATABASE_URL: database });
    const url = await first.ready;
    await expect.poll(() => first.output()).toMatch(/curl -sS -X POST/);
    const token = tokenOf(first.output());
    expect(token).toBeDefined();
    expect(first.output()).toContain(`made now and kept in ${join(data, 'dev-token')}`);
    expect(statSync(join(data, 'dev-token')).mode & 0o777).toBe(0o600);
    const response = await create(url, '{"id": 1, "name": "Monstera", "tag": "indoor"}', token);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'Monstera', tag: 'indoor' });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    // A restart prints and accepts the same token: yesterday's curl still works.
    const second = start({ DATABASE_URL: database });
    const again = await second.ready;
    await expect.poll(() => second.output()).toMatch(/curl -sS -X POST/);
    expect(tokenOf(second.output())).toBe(token);
    expect(second.output()).toContain(`kept in ${join(data, 'dev-token')}`);
    expect((await create(again, '{"id": 2, "name": "Fern"}', token)).status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('refuses to start in production with no credential, naming both ways out', async () => {
    const server = start({ NODE_ENV: 'production', DATABASE_URL: join(folder, 'prod.db') });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/^plant-store: Invalid configuration: NODE_ENV=production/);
    expect(server.output()).toContain('set PLANT_STORE_TOKENS');
    expect(server.output()).toContain('plant-store tokens create --name <consumer>');
    expect(server.output()).not.toMatch(/\n\s+at /); // a refusal, not a crash: no stack
  });

  it('starts in production on managed tokens alone, and refuses again once they are revoked', async () => {
    const database = join(folder, 'prod-managed.db');
    const created = await runCliProcess(['tokens', 'create', '--name', 'acme'], {
      DATABASE_URL: database,
    });
    expect(created.status, created.stderr).toBe(0);
    const managed = created.stdout.trim();
    const server = start({ NODE_ENV: 'production', DATABASE_URL: database });
    const url = await server.ready;
    expect((await create(url, '{"id": 7, "name": "Cactus"}', managed)).status).toBe(200);
    expect((await create(url, '{"id": 8, "name": "Cactus"}', 'x'.repeat(43))).status).toBe(401);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    const revoked = await runCliProcess(['tokens', 'revoke', 'acme'], { DATABASE_URL: database });
    expect(revoked.status, revoked.stderr).toBe(0);
    const refused = start({ NODE_ENV: 'production', DATABASE_URL: database });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('NODE_ENV=production needs a credential');
  });

  it('names every invalid setting and exits 1', async () => {
    const server = start({ PORT: 'eighty', BODY_LIMIT: 'huge', PLANT_STORE_TOKENS: 'short' });
    expect(await server.exited).toBe(1);
    for (const name of ['PORT', 'BODY_LIMIT', 'PLANT_STORE_TOKENS']) {
      expect(server.output()).toContain(`${name}`);
    }
    expect(server.output()).toMatch(/^plant-store: Invalid configuration: /);
  });

  it('keeps every plant across SIGTERM and a restart on the same file, exiting 0; production stdout is JSON lines only, whatever LOG_LEVEL says', async () => {
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: `file:${join(folder, 'restart.db')}`,
      PLANT_STORE_TOKENS: token,
    };
    const first = start({ ...env, LOG_LEVEL: 'info' });
    const url = await first.ready;
    const ids = [1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n];
    for (const id of ids)
      expect((await create(url, `{"id": ${id}, "name": "p${id}"}`)).status).toBe(200);
    // A request in flight when SIGTERM arrives (half its body sent) is still answered: the
    // rest of its body follows once the process has logged that it is shutting down.
    const inFlight = slowCreate(url, '{"id": 99, "name": "late"}', async () => {
      first.child.kill('SIGTERM');
      await expect.poll(() => first.output(), { timeout: 10_000 }).toMatch(/shutting down/);
    });
    expect(await inFlight).toMatchObject({ status: 200, body: '{"name":"late"}' });
    expect(await first.exited).toBe(0);
    expect(jsonLines(first, url).map((line) => line.msg)).toContain('stopped');

    const second = start({ ...env, LOG_LEVEL: 'warn' });
    const secondUrl = await second.ready;
    for (const id of [...ids, 99n]) {
      const name = id === 99n ? 'late' : `p${id}`;
      const replay = await create(secondUrl, `{"id": ${id}, "name": "${name}"}`);
      expect(replay.status, `id ${id} is still stored`).toBe(200);
      const conflict = await create(secondUrl, `{"id": ${id}, "name": "other"}`);
      expect(conflict.status).toBe(409);
    }
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    jsonLines(second, secondUrl);
  });
});

/**
 * What a production process wrote: JSON lines only, the start-up line among them, once (it names
 * the database too). Fails the test otherwise.
 */
function jsonLines(server: SpawnedServer, url: string): { msg?: string; url?: string }[] {
  const lines = server.output().trimEnd().split('\n');
  const logged = lines.map((line) => JSON.parse(line) as { msg?: string; url?: string });
  expect(logged).toContainEqual(
    expect.objectContaining({ msg: `Plant Store is listening on ${url}`, url }),
  );
  const listening = logged.filter((line) => /listening/.test(line.msg ?? ''));
  expect(listening).toEqual([expect.objectContaining({ database: expect.any(String) })]);
  return logged;
}

/** A port another process (here: a plain HTTP server) already listens on, while `use` runs. */
async function withTakenPort(use: (port: number) => Promise<void>): Promise<void> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const address = blocker.address();
  try {
    await use(typeof address === 'object' && address !== null ? address.port : 0);
  } finally {
    blocker.close();
  }
}

describe('a start-up failure', () => {
  // Each is exactly one line (what failed and why), then exit status 1: no stack.
  it('of a port given as text reads like any other bad port', async () => {
    const server = start({ PORT: 'abc', PLANT_STORE_TOKENS: token });
    expect(await server.exited).toBe(1);
    expect(server.output()).toBe(
      'plant-store: Invalid configuration: PORT: "abc" is not a whole number from 0 to 65535 (decimal digits only)\n',
    );
  });

  it("of a port in use names the address and port, with Node's reason", async () => {
    await withTakenPort(async (port) => {
      const env = { PORT: String(port), PLANT_STORE_TOKENS: token };
      const server = start({ ...env, DATABASE_URL: join(folder, 'taken.db') });
      expect(await server.exited).toBe(1);
      expect(server.output()).toBe(
        `plant-store: cannot listen on 127.0.0.1:${port}: ` +
          `listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`,
      );
      // LOG_LEVEL=debug adds the stack under the same line.
      const debug = start({ ...env, LOG_LEVEL: 'debug', DATABASE_URL: join(folder, 'taken2.db') });
      expect(await debug.exited).toBe(1);
      expect(debug.output()).toContain(`plant-store: cannot listen on 127.0.0.1:${port}: `);
      expect(debug.output()).toMatch(/\n\s+at /);
    });
  });

  it('of a metrics port in use names that port', async () => {
    await withTakenPort(async (port) => {
      const server = start({
        METRICS_PORT: String(port),
        PLANT_STORE_TOKENS: token,
        DATABASE_URL: join(folder, 'metrics-taken.db'),
      });
      expect(await server.exited).toBe(1);
      expect(server.output()).toMatch(
        new RegExp(
          `^plant-store: cannot listen on 127\\.0\\.0\\.1:${port}: listen EADDRINUSE: .*\n$`,
        ),
      );
    });
  });

  it('of a HOST that does not resolve names it', async () => {
    const server = start({
      HOST: 'no-such-host.invalid',
      PLANT_STORE_TOKENS: token,
      DATABASE_URL: join(folder, 'no-host.db'),
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toBe(
      'plant-store: cannot listen on no-such-host.invalid:0: getaddrinfo ENOTFOUND no-such-host.invalid\n',
    );
  });

  it('of a data directory the development token cannot be kept in names the directory', async () => {
    const file = join(folder, 'a-file');
    writeFileSync(file, '');
    const server = start({ DATABASE_URL: join(file, 'data', 'plants.db') });
    expect(await server.exited).toBe(1);
    expect(server.output()).toBe(
      `plant-store: cannot use the data directory ${join(file, 'data')} (of DATABASE_URL; ` +
        `the development token is kept there): ENOTDIR: not a directory, mkdir '${join(file, 'data')}'; ` +
        'set DATABASE_URL to a file in a directory this user can write, or set PLANT_STORE_TOKENS\n',
    );
  });
});
