import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.ts';
import { rawExchange as exchange, type RawRequest } from '../security/exchange.ts';
import { OpenApiResponseValidator } from '../support/openapi-validator.ts';
import { readPlantRows } from '../support/read-plant-rows.ts';
import { type ServerInTempFolder, spawnFloodableServer } from '../support/spawn-server.ts';

// Against a real server process: every Error body is at most 1 KB whatever the input (many or
// long keys, long strings, deep or wide nesting, long arrays, long paths and media types), a
// JSON body declared in any charset but UTF-8 is 415 whatever comes with it, and nothing is
// stored. (The CPU each bad body costs is measured by `pnpm bench`, not here.)

const token = `bounded-${randomBytes(16).toString('base64url')}`;
const validator = new OpenApiResponseValidator();
let spawned: ServerInTempFolder | undefined;
let url: string;

beforeAll(async () => {
  spawned = await spawnFloodableServer('plant-store-bounded-', token);
  url = spawned.url;
}, 60_000);
afterAll(() => spawned?.stop());

function post(
  body: string,
  contentType = 'application/json',
  headers: Record<string, string> = {},
): RawRequest {
  return {
    method: 'POST',
    path: '/plants',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType, ...headers },
    body: Buffer.from(body),
  };
}

/**
 * Just under the default BODY_LIMIT the server runs with (512 bytes for each body's wrapping):
 * the length of the bodies labelled "full-size".
 */
const ROOM = DEFAULTS.bodyLimitBytes - 512;
/** `{…head, unit(0), unit(1), …}` as long as fits in ROOM. */
function filled(unit: (i: number) => string, head = '"id": 1, "name": "Fern"'): string {
  const parts = [head];
  let length = head.length + 2;
  for (let i = 0; length + unit(i).length + 1 < ROOM; i++) {
    parts.push(unit(i));
    length += unit(i).length + 1;
  }
  return `{${parts.join(',')}}`;
}
const repeated = (count: number, item: string) => Array(Math.floor(count)).fill(item).join(',');

const BAD_BODIES: [string, string, number, RegExp][] = [
  [
    'full-size: unknown keys',
    filled((i) => `"k${i}":1`),
    40001,
    /^\(body\): has more than 16 properties: `id`, `name`, `k0`, …$/,
  ],
  [
    'full-size: unknown keys, no id or name',
    filled((i) => `"k${i}":1`, '"a": 1'),
    40001,
    /^\(body\): has more than 16 properties: `a`, `k0`, `k1`, …$/,
  ],
  [
    '14 unknown keys of 4 KB (16 members: read)',
    `{"id":1,"name":"x",${Array.from({ length: 14 }, (_, i) => `"${i}${'k'.repeat(4000)}":1`).join(',')}}`,
    40001,
    /^`0k{38}…`, `1k{38}…` and 12 more: unknown properties$/,
  ],
  ['full-size: one key', `{"id":1,"name":"x","${'k'.repeat(ROOM)}":1}`, 40001, /unknown property$/],
  [
    'full-size: a name',
    `{"id":1,"name":"${'x'.repeat(ROOM)}"}`,
    40001,
    /^name: must be at most 200/,
  ],
  [
    'full-size: an escaped name',
    `{"id":1,"name":"${'\\u00e9'.repeat(ROOM / 6)}"}`,
    40001,
    /^name: must be at most 200/,
  ],
  [
    'full-size: an array of numbers',
    `{"id":1,"name":"x","a":[${repeated(ROOM / 2, '1')}]}`,
    40001,
    /^a: unknown property$/,
  ],
  [
    'full-size: an id that is an array',
    `{"id":[${repeated(ROOM / 2, '1')}],"name":"x"}`,
    40001,
    /^id: must be an integer .*\(got an array\)$/,
  ],
  ['full-size: an array as the body', `[${repeated(ROOM / 2, '1')}]`, 40001, /got an array/],
  [
    'full-size: arrays nested 62 deep',
    `{"id":1,"name":"x","a":[${repeated(ROOM / 128, `${'['.repeat(62)}${']'.repeat(62)}`)}]}`,
    40001,
    /^a: unknown property$/,
  ],
  [
    'nesting 30,000 deep',
    `{"id":1,"name":"x","a":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
    40005,
    /deeper than 64 levels/,
  ],
  ['full-size: an id of digits', `{"id":${'9'.repeat(ROOM)},"name":"x"}`, 40001, /^id: /],
  [
    'full-size: a key repeated with different values',
    `{"${'k'.repeat(ROOM / 2 - 20)}":1,"${'k'.repeat(ROOM / 2 - 20)}":2}`,
    40002,
    /repeats the key/,
  ],
  ['full-size: a string as the body', `"${'x'.repeat(ROOM)}"`, 40001, /got a string/],
];

describe('every Error body is at most 1 KB', () => {
  it.each(BAD_BODIES)('%s → 400, ≤ 1 KB, nothing stored', async (_label, body, code, message) => {
    const reply = await exchange(url, post(body));
    expect(reply.status).toBe(400);
    expect(Buffer.byteLength(reply.text)).toBeLessThanOrEqual(1024);
    const parsed = JSON.parse(reply.text) as { error: number; message: string };
    expect(parsed.error).toBe(code);
    expect(parsed.message).toMatch(message);
    validator.assertResponse('post', '/plants', 400, parsed);
  });

  it.each([
    ['a 15 KB path', 404, { method: 'GET', path: `/${'p'.repeat(15_000)}`, headers: {} }],
    [
      'a 15 KB path with another method',
      405,
      { method: 'DELETE', path: `/plants?${'q'.repeat(15_000)}`, headers: {} },
    ],
    ['a 15 KB media type', 415, post('{}', `application/${'x'.repeat(15_000)}`)],
  ] satisfies [string, number, RawRequest][])(
    '%s → %i, ≤ 1 KB',
    async (_label, status, request) => {
      const reply = await exchange(url, request);
      expect(reply.status).toBe(status);
      expect(Buffer.byteLength(reply.text)).toBeLessThanOrEqual(1024);
      expect(JSON.parse(reply.text)).toMatchObject({ error: expect.any(Number) });
    },
  );

  it('stored nothing', () => {
    expect(readPlantRows(spawned?.databaseFile ?? '')).toEqual([]);
  });
});

// Each row is a Content-Type and the status it gets. The charset is read by a lenient parse
// (content-type 2): a stray `;`, an empty parameter or one without `=` never hides it (the rows
// marked `lenient`), and an empty charset is not UTF-8.
const CHARSETS: [string, number][] = [
  ['application/json; charset=iso-8859-1;', 415], // lenient
  ['application/json; charset=utf-16; x', 415], // lenient
  ['application/json; x; charset=utf-16', 415], // lenient
  ['application/json;; charset=latin1', 415], // lenient
  ['application/json; charset=', 415], // lenient
  ['application/json; charset="utf-16";', 415], // lenient
  ['application/json; charset=utf-16', 415],
  ['application/json; charset="utf-16"', 415],
  ['application/json;charset=UTF-16LE', 415],
  ['application/json; CHARSET = iso-8859-1', 415],
  ['application/vnd.api+json; charset=windows-1252', 415],
  ['application/json; charset=utf-8;', 200],
  ['application/json; charset=UTF8; x', 200],
  ['application/json; charset="utf-8"', 200],
  ['application/json;;charset=Utf-8', 200],
  ['application/json; foo="a;charset=utf-16"', 200],
  ['application/json; not-a-parameter', 200],
  ['application/json', 200],
  ['text/plain; charset=utf-8', 415],
  ['application/json x; charset=utf-8', 415],
  ['/; charset=utf-8', 415],
];

describe('a JSON body in any charset but UTF-8 is 415', () => {
  let id = 1_000;
  it.each(CHARSETS)('Content-Type: %s → %i', async (contentType, status) => {
    id += 1;
    const reply = await exchange(url, post(`{"id":${id},"name":"Fern"}`, contentType));
    expect(reply.status).toBe(status);
    const body = JSON.parse(reply.text);
    validator.assertResponse('post', '/plants', status, body);
    if (status === 415) expect(body.error).toBe(41501);
  });
});
