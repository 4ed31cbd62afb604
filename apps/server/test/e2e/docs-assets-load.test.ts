import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_PATHS } from '../../src/docs/docs-assets.ts';
import { memoryMb, resetPeakMemory } from '../support/process-stats.ts';
import { openSocket } from '../support/raw-socket.ts';
import { type ServerInTempFolder, spawnFloodableServer } from '../support/spawn-server.ts';

// The API reference's files against a real server process, measured from its /proc (so the
// test's own buffers do not count): 200 connections that ask for the renderer script (the
// largest file, megabytes) and never read hold their sockets and no copy of the script; each
// file is sent as built, in the encoding asked for. Their CPU per GET lives in `pnpm bench`
// (`--assets`).

const STALLED = 200;
/**
 * The bound on the server's resident memory growth while STALLED readers hold their GETs: a
 * quarter MB a connection, room for its socket's buffers but not for a copy of the script.
 */
const STALLED_GROWTH_LIMIT_MB = 50;
/** What a second crowd, after the first closed, may add to the first one's peak. */
const SECOND_CROWD_LIMIT_MB = 30;
/** Descriptors the server may open besides one socket per stalled reader (no file each). */
const DESCRIPTOR_SLACK = 10;
/**
 * What the resident size may exceed the first peak by, 500 ms after the crowd closed: the
 * peak is read while the readers stall, and closing 200 sockets allocates a little more; a
 * copy of the script held per reader would stay far above it.
 */
const AFTER_CLOSE_SLACK_MB = 15;
const token = `assets-${randomBytes(16).toString('base64url')}`;
let spawned: ServerInTempFolder | undefined;
let url: string;
let pid: number;

beforeAll(async () => {
  spawned = await spawnFloodableServer('plant-store-assets-', token);
  url = spawned.url;
  pid = spawned.server.child.pid ?? 0;
}, 30_000);
afterAll(() => spawned?.stop());

/** A GET read to its end: status, headers and the body's length as sent. */
function get(
  agent: Agent,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; encoding: string | undefined; bytes: number }> {
  return new Promise((resolve, reject) => {
    request(`${url}${path}`, { agent, headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          encoding: response.headers['content-encoding'],
          bytes,
        }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

async function createPlant(id: number): Promise<number> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: 'Fern' }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Resolves once the server has begun to answer on `socket` (data waits unread in it). */
function answerBegun(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('readable', () => resolve());
    socket.once('error', reject);
  });
}

/**
 * Opens STALLED connections that each ask for the script without Accept-Encoding (the
 * identity file, megabytes) and never read: the client's stream takes its high-water mark
 * (16 KiB) and stops, the kernel's receive buffer (its initial ~128 KiB: it grows only as the
 * reader reads) fills, then the server's send buffer, then whatever the server holds in its own
 * memory.
 * Resolves once the server has begun to answer every one and had a second to fill the buffers.
 */
async function stallReaders(): Promise<Socket[]> {
  const sockets = await Promise.all(Array.from({ length: STALLED }, () => openSocket(url)));
  const begun = sockets.map(answerBegun);
  for (const socket of sockets) {
    socket.write(`GET ${DOCS_PATHS.script} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  }
  try {
    await Promise.all(begun);
  } catch (error) {
    for (const socket of sockets) socket.destroy();
    throw error;
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return sockets;
}

describe('the docs script and 200 connections that never read it', () => {
  it('holds no copy of the script per connection, nothing once they close, and /healthz and a create still answer', async () => {
    // Warm: the files, the route, a create.
    const agent = new Agent({ keepAlive: true });
    expect((await get(agent, DOCS_PATHS.script, {})).status).toBe(200);
    expect(await createPlant(1)).toBe(200);
    agent.destroy();
    const baseline = memoryMb(pid, 'VmRSS');
    resetPeakMemory(pid);

    const descriptors = () => readdirSync(`/proc/${pid}/fd`).length;
    const idleDescriptors = descriptors();
    const first = await stallReaders();
    // Each stalled reader holds its socket, and no file: the answer is in memory already.
    const stalledDescriptors = descriptors() - idleDescriptors;
    expect(stalledDescriptors).toBeLessThanOrEqual(STALLED + DESCRIPTOR_SLACK);
    try {
      expect((await fetch(`${url}${contract.getHealth.path}`)).status).toBe(200);
      expect(await createPlant(2)).toBe(200);
    } finally {
      for (const socket of first) socket.destroy();
    }
    const firstPeak = memoryMb(pid, 'VmHWM') - baseline;
    // The server sees the resets and frees the sockets (Node returns their memory to the system
    // only after a garbage collection, whenever that runs): a second crowd adds little.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const afterClose = memoryMb(pid, 'VmRSS') - baseline;
    const second = await stallReaders();
    for (const socket of second) socket.destroy();
    const secondPeak = memoryMb(pid, 'VmHWM') - baseline;
    console.log(
      `docs script, ${STALLED} stalled readers: RSS ${baseline.toFixed(1)} MB, peak +${firstPeak.toFixed(1)} MB (${((firstPeak * 1024) / STALLED).toFixed(0)} KiB a connection), +${afterClose.toFixed(1)} MB after they closed, peak +${secondPeak.toFixed(1)} MB with a second crowd; +${stalledDescriptors} descriptors`,
    );
    expect(firstPeak).toBeLessThanOrEqual(STALLED_GROWTH_LIMIT_MB);
    expect(afterClose).toBeLessThanOrEqual(firstPeak + AFTER_CLOSE_SLACK_MB);
    expect(secondPeak - firstPeak).toBeLessThanOrEqual(SECOND_CROWD_LIMIT_MB);
  }, 60_000);
});

describe('an asset GET, in each encoding', () => {
  const assets = [DOCS_PATHS.script, DOCS_PATHS.page, contract.getOpenApiDocument.path];
  const encodings = [
    ['none', undefined, undefined],
    ['gzip', 'gzip', 'gzip'],
    ['br', 'br', 'br'],
    ['a browser', 'gzip, deflate, br, zstd', 'br'],
  ] as const;

  it.each(assets)(
    'GET %s is answered with the built file in the encoding asked for, the same bytes each time',
    async (path) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const sent: { encoding: string | undefined; bytes: number[] }[] = [];
      try {
        for (const [, accept] of encodings) {
          const headers: Record<string, string> = accept ? { 'accept-encoding': accept } : {};
          const answers = [await get(agent, path, headers), await get(agent, path, headers)];
          for (const answer of answers) expect(answer.status).toBe(200);
          sent.push({ encoding: answers[0]?.encoding, bytes: answers.map((a) => a.bytes) });
        }
      } finally {
        agent.destroy();
      }
      expect(sent.map((s) => s.encoding)).toEqual(encodings.map(([, , encoding]) => encoding));
      for (const { bytes } of sent) expect(new Set(bytes).size).toBe(1);
      // Each compressed copy is smaller than the file itself.
      const [identity, ...compressed] = sent.map((s) => s.bytes[0] ?? 0);
      for (const size of compressed) expect(size).toBeLessThan(identity ?? 0);
    },
    60_000,
  );
});
