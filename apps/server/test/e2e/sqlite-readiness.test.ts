import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CAN_MOUNT,
  mountSmallFilesystem,
  type SmallFilesystem,
} from '../support/small-filesystem.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// A real server process whose database meets a real fault while it runs: /readyz must say
// whether a create can commit, turn 503 after the fault with no create to notice it (the probe
// writes every 2 s), come back when the fault clears, and log each transition once with its cause.

const token = `readiness-${randomBytes(24).toString('base64url')}`;
const servers: SpawnedServer[] = [];
const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-readiness-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function start(filename: string, user?: { uid: number; gid: number }) {
  const server = spawnServer(
    {
      PORT: '0',
      DATABASE_URL: filename,
      PLANT_STORE_TOKENS: token,
      LOG_LEVEL: 'info',
      ...NO_RATE_LIMITS,
    },
    { user },
  );
  servers.push(server);
  return { server, url: await server.ready };
}

async function readyz(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: await response.json() };
}

/** Polls /readyz, with no other request, until it answers `status` (the test's timeout bounds it). */
async function waitForReadyz(url: string, status: number): Promise<void> {
  while ((await readyz(url)).status !== status) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function create(url: string, id: bigint, name = 'Fern'): Promise<number> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: Number(id), name }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** The "not ready" / "ready again" lines the server logged, in order, once `last` matches the last. */
async function transitions(server: SpawnedServer, last: RegExp): Promise<string[]> {
  for (;;) {
    const lines = loggedTransitions(server);
    if (last.test(lines.at(-1) ?? '')) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function loggedTransitions(server: SpawnedServer): string[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string })
    .map((entry) => entry.msg)
    .filter((msg) => msg.startsWith('not ready') || msg.startsWith('ready again'));
}

describe('/readyz follows the ability to commit (SQLite, real server process)', () => {
  it('turns 503 once the database files are deleted, with no create to notice it, refuses creates, and says why', async () => {
    const filename = path.join(tempDir(), 'plants.db');
    const { server, url } = await start(filename);
    expect(await create(url, 1n)).toBe(200);
    expect(await readyz(url)).toEqual({ status: 200, body: { status: 'ok' } });
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${filename}${suffix}`);
    await waitForReadyz(url, 503);
    expect((await readyz(url)).body).toEqual({
      error: 50301,
      message: 'Not ready: the store cannot commit (FILE_DELETED)',
    });
    // Nothing more is acknowledged into the deleted file.
    expect(await create(url, 2n)).toBe(503);
    const logged = await transitions(server, /^not ready/);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(
      /^not ready \(FILE_DELETED\): The database file is gone: .*plants\.db was deleted while the server had it open$/,
    );
  });

  it.skipIf(!CAN_MOUNT)(
    'turns 503 when the disk is full and 200 again once space is freed (tmpfs; needs root, skipped when not root)',
    async () => {
      const disk: SmallFilesystem = mountSmallFilesystem(4 * 1024 * 1024);
      cleanups.push(() => disk.unmount());
      const { server, url } = await start(path.join(disk.dir, 'plants.db'));
      expect(await create(url, 1n)).toBe(200);
      const filler = disk.fill(0);
      // Creates fill what the WAL gives back until the data has the disk: then 503 for good.
      let id = 2n;
      let refused = 0;
      while (refused < 3 && id < 50_000n) {
        const status = await create(url, id, 'x'.repeat(180));
        id += 1n;
        refused = status === 503 ? refused + 1 : 0;
      }
      expect(refused).toBe(3);
      await waitForReadyz(url, 503);
      expect((await readyz(url)).body).toMatchObject({ message: /SQLITE_FULL/ });
      // Still full: it stays not ready without traffic (the probe keeps failing).
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect((await readyz(url)).status).toBe(503);

      fs.rmSync(filler);
      await waitForReadyz(url, 200);
      expect(await create(url, id)).toBe(200);
      const logged = await transitions(server, /^ready again/);
      expect(logged.at(-1)).toBe('ready again: the store commits');
      expect(
        logged.filter((line) => line.startsWith('not ready (SQLITE_FULL)')).length,
      ).toBeGreaterThan(0);
      // Each line is a transition: never the same state twice in a row.
      logged.forEach((line, index) => {
        if (index > 0) expect(line.slice(0, 12)).not.toBe(logged[index - 1]?.slice(0, 12));
      });
    },
  );

  it.skipIf(!CAN_MOUNT)(
    'refuses to start, as another user, on a file that user cannot write: one line, exit 1, never a server that answers 503 for ever (needs root to switch user)',
    async () => {
      const dir = tempDir();
      fs.chmodSync(dir, 0o777);
      const filename = path.join(dir, 'plants.db');
      const first = await start(filename);
      expect(await create(first.url, 1n)).toBe(200);
      first.server.child.kill('SIGTERM');
      await first.server.exited;
      fs.chmodSync(filename, 0o444);
      const refused = start(filename, { uid: 65534, gid: 65534 });
      await expect(refused).rejects.toThrow(
        /server exited \(1\) before listening: plant-store: Cannot open the SQLite database .*: it cannot be written \(SQLITE_READONLY/,
      );
    },
  );
});
