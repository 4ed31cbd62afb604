import { ERROR_MESSAGES, parseJson } from '@plant-store/schema';
import {
  OpenApiResponseValidator,
  readPlantRows,
  startTestServer,
  type TestServer,
} from '@plant-store/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStoreClient } from '../../src/client.ts';
import { PlantStoreError, PlantStoreValidationError } from '../../src/errors.ts';
import { Pacer } from '../../src/pacer.ts';
import { validateNewPlant } from '../../src/validate.ts';

// The real client against the real server (in-process, real HTTP on 127.0.0.1, a real SQLite
// file): what an internal app that imports this package sees.

const validator = new OpenApiResponseValidator();

/** The row stored with `id` in the server's SQLite file, read on a connection of its own. */
function stored(at: TestServer, id: bigint) {
  return readPlantRows(at.databaseFile).find((row) => row.id === id);
}
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

const client = () => createPlantStoreClient({ baseUrl: server.url, token: server.token });

async function failure(promise: Promise<unknown>): Promise<PlantStoreError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PlantStoreError);
  return error as PlantStoreError;
}

describe('createPlant against the real server', () => {
  it('creates plants with number and bigint ids, stored exactly', async () => {
    for (const id of [1, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n]) {
      const plant = await client().createPlant({ id, name: `plant ${id}`, tag: 'edge' });
      expect(plant).toEqual({ name: `plant ${id}`, tag: 'edge' });
      validator.assertResponse('post', '/plants', 200, plant);
      expect(stored(server, BigInt(id))).toEqual({
        id: BigInt(id),
        name: `plant ${id}`,
        tag: 'edge',
      });
    }
  });

  it('replays an identical create as a success and reports a conflict as 409', async () => {
    const plant = { id: 500n, name: 'Cactus', tag: 'desert' };
    expect(await client().createPlant(plant)).toEqual({ name: 'Cactus', tag: 'desert' });
    expect(await client().createPlant(plant)).toEqual({ name: 'Cactus', tag: 'desert' });
    const conflict = await failure(client().createPlant({ id: 500n, name: 'Agave' }));
    expect(conflict).toMatchObject({ status: 409, code: 40901, attempts: 1 });
    expect(conflict.message).toBe(ERROR_MESSAGES.conflict(500n));
  });

  it('reports a refused credential as 401 without retrying', async () => {
    const wrong = createPlantStoreClient({ baseUrl: server.url, token: 'not-the-token-123456' });
    const error = await failure(wrong.createPlant({ id: 501, name: 'Fern' }));
    expect(error).toMatchObject({ status: 401, code: 40101, attempts: 1 });
    expect(stored(server, 501n)).toBeUndefined();
  });

  it('refuses invalid input before sending anything', async () => {
    const attempt = client().createPlant({ id: 502, name: '', tag: 'x' });
    await expect(attempt).rejects.toBeInstanceOf(PlantStoreValidationError);
    await expect(attempt).rejects.toThrow('name: must not be empty');
    expect(stored(server, 502n)).toBeUndefined();
  });

  it('retries a 503 from an unavailable store, then reports it with Retry-After', async () => {
    const down = await startTestServer();
    await down.store.close();
    const flaky = createPlantStoreClient({
      baseUrl: down.url,
      token: down.token,
      retries: 1,
      retryDelayMs: 10,
    });
    const error = await failure(flaky.createPlant({ id: 503, name: 'Moss' }));
    expect(error).toMatchObject({ status: 503, code: 50301, retryAfter: 1, attempts: 2 });
    await down.dispose();
  });

  it('paces itself under a rate limit; without pacing or retries a 429 reports Retry-After 1', async () => {
    // 2 requests at once, then 5 per second; the refused-credential limit off.
    const limited = await startTestServer({
      rateLimit: { perSecond: 5, burst: 2, authFailuresPerMinute: 0 },
    });
    try {
      // The status of every attempt the paced client sends.
      const statuses: number[] = [];
      const paced = createPlantStoreClient({
        baseUrl: limited.url,
        token: limited.token,
        pacer: new Pacer(),
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          statuses.push(response.status);
          return response;
        },
      });
      const plants = await Promise.all(
        Array.from({ length: 6 }, (_, i) => paced.createPlant({ id: 600 + i, name: 'Fern' })),
      );
      expect(plants).toHaveLength(6);
      for (let i = 0; i < 6; i++) expect(stored(limited, BigInt(600 + i))).toBeDefined();
      // 2 at once, then 4 more at 5/s, with no error: paced, not refused and retried (six sent
      // at once meet at least 4 refusals).
      expect(statuses.filter((status) => status !== 429)).toEqual(Array(6).fill(200));
      expect(statuses.filter((status) => status === 429).length).toBeLessThan(4);

      const unpaced = createPlantStoreClient({
        baseUrl: limited.url,
        token: limited.token,
        retries: 0,
      });
      const replies = await Promise.allSettled(
        Array.from({ length: 4 }, (_, i) => unpaced.createPlant({ id: 700 + i, name: 'Ivy' })),
      );
      const refused = replies.filter((reply) => reply.status === 'rejected');
      expect(refused.length).toBeGreaterThan(0);
      for (const reply of refused) {
        const error = (reply as PromiseRejectedResult).reason as PlantStoreError;
        expect(error).toMatchObject({ status: 429, code: 42901, attempts: 1, retryAfter: 1 });
        expect(error.message).toBe('Too many requests for this credential; retry after 1 second');
      }
    } finally {
      await limited.dispose();
    }
  });
});

/**
 * Bodies as a consumer would write them in JSON. The client sees them parsed (with the same
 * lossless parser), the server as raw text: both must give the same verdict and message.
 */
const AGREEMENT_TABLE: string[] = [
  '{"id": 9001, "name": "Fern"}',
  '{"id": 9002, "name": "Fern", "tag": "shade"}',
  '{"id": 9223372036854775807, "name": "max"}',
  '{"id": -9223372036854775808, "name": "min"}',
  '{"id": 9007199254740993, "name": "2^53+1"}',
  '{"id": 9003.0, "name": "integral fraction"}',
  '{"id": 9223372036854775808, "name": "2^63"}',
  '{"id": 1e400, "name": "huge"}',
  '{"id": 1.5, "name": "fraction"}',
  '{"id": "9004", "name": "string id"}',
  '{"id": null, "name": "null id"}',
  '{"name": "no id"}',
  '{"id": 9005}',
  '{"id": 9006, "name": ""}',
  `{"id": 9007, "name": "${'n'.repeat(200)}"}`,
  `{"id": 9008, "name": "${'n'.repeat(201)}"}`,
  `{"id": 9009, "name": "a", "tag": "${'t'.repeat(101)}"}`,
  '{"id": 9010, "name": "a", "tag": null}',
  '{"id": 9011, "name": "a", "tag": 7}',
  '{"id": 9012, "name": "a", "wheels": 4}',
  '{"id": 9013, "name": "a", "__proto__": {"admin": true}}',
  '{"id": 9014, "name": "a", "constructor": {}}',
  '{"id": 9015, "name": "\\ud83c\\udf35 cactus"}',
  '{"id": 9016, "name": "\\ud83c"}',
  '{"id": 9017, "name": "tab\\there"}',
  '{"id": 9018, "name": ["a"]}',
  '[{"id": 9019, "name": "array"}]',
  '"just a string"',
  '42',
  'null',
  '{}',
];

describe('the client and the server agree on every body', () => {
  // A server of its own, so the table's ids meet no plant created above.
  let fresh: TestServer;
  beforeAll(async () => {
    fresh = await startTestServer();
  });
  afterAll(async () => {
    await fresh.dispose();
  });

  it.each(AGREEMENT_TABLE)('%s', async (text) => {
    const clientVerdict = validateNewPlant(parseJson(text));
    const response = await fetch(`${fresh.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fresh.token}`, 'content-type': 'application/json' },
      body: text,
    });
    const body = (await response.json()) as { error?: number; message?: string };
    validator.assertResponse('post', '/plants', response.status, body);
    if (clientVerdict.ok) {
      expect(response.status).toBe(200);
      const { id, ...plant } = clientVerdict.value;
      expect(stored(fresh, BigInt(id))).toEqual({ id: BigInt(id), ...plant });
    } else {
      expect(response.status).toBe(400);
      expect(body).toEqual({ error: 40001, message: clientVerdict.message });
    }
  });

  it('covers both verdicts', () => {
    const verdicts = AGREEMENT_TABLE.map((text) => validateNewPlant(parseJson(text)).ok);
    expect(verdicts.filter(Boolean).length).toBeGreaterThanOrEqual(7);
    expect(verdicts.filter((ok) => !ok).length).toBeGreaterThanOrEqual(20);
  });
});
