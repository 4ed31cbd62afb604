import { readFileSync } from 'node:fs';
import { maxHeaderSize } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/config.ts';

// The shipped proxies enforce the server's default BODY_LIMIT on POST /plants before an instance
// sees a byte, and size their buffers from it; the proxies' 413 bodies and the docs state it. A
// default changed in config.ts must change there too: each check names the file and what to
// write.

const repoFile = (path: string) =>
  readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

const KIB = 1024;
const MIB = 1024 * KIB;

/** nginx's size syntax (`64k`, `1m`, bytes) in bytes. */
function nginxBytes(size: string): number {
  const match = /^(\d+)([kKmM]?)$/.exec(size);
  if (!match) throw new Error(`not an nginx size: ${size}`);
  const unit = { '': 1, k: KIB, m: MIB }[(match[2] ?? '').toLowerCase()] ?? 1;
  return Number(match[1]) * unit;
}

/** A size as the 413 bodies and the docs write it: `64 KiB`, `1 MiB`, `1000 bytes`. */
function stated(size: number): string {
  if (size % MIB === 0) return `${size / MIB} MiB`;
  if (size % KIB === 0) return `${size / KIB} KiB`;
  return `${size} bytes`;
}

/** A text that states the default BODY_LIMIT: each `pattern` match's group 1 is the size. */
interface Statement {
  readonly file: string;
  readonly what: string;
  readonly pattern: RegExp;
  readonly count: number;
}

const SIZE = String.raw`(\d+\s+(?:bytes|KiB|MiB))`;
// The 413 body each proxy sends, in nginx.conf's `@too_large` and in the Lua service haproxy.cfg
// loads: `(64 KiB for POST /plants, 4 KiB elsewhere)`.
const PROXY_413 = new RegExp(String.raw`"message":"[^"]*\(${SIZE} for POST /plants,`, 'g');
const STATEMENTS: readonly Statement[] = [
  { file: 'deploy/nginx.conf', what: "@too_large's 413 body", pattern: PROXY_413, count: 1 },
  {
    file: 'deploy/plant-store-too-large.lua',
    what: 'the 413 body (BODY)',
    pattern: PROXY_413,
    count: 1,
  },
  {
    file: 'docs/api.md',
    what: 'the default stated after `BODY_LIMIT`',
    pattern: new RegExp(String.raw`\`BODY_LIMIT\`\W{1,3}${SIZE}\s+by\s+default`, 'g'),
    count: 2,
  },
  {
    file: 'docs/deployment.md',
    what: "the proxies' bound on `POST /plants`",
    pattern: new RegExp(String.raw`\(${SIZE}\s+on\s+\`POST /plants\``, 'g'),
    count: 1,
  },
];

/** What is wrong with `statement` for a BODY_LIMIT default of `limit` bytes: [] when nothing. */
function statementProblems(statement: Statement, limit: number): string[] {
  const { file, what, pattern, count } = statement;
  const text = repoFile(file);
  const found = [...text.matchAll(pattern)].map((match) => ({
    line: text.slice(0, match.index).split('\n').length,
    size: (match[1] ?? '').replace(/\s+/g, ' '),
  }));
  if (found.length !== count) {
    return [
      `${file}: ${count} statement(s) of the default BODY_LIMIT expected (${what}), ${found.length} found by ${pattern}: keep the sentence, or change this check with it`,
    ];
  }
  const want = stated(limit);
  return found
    .filter(({ size }) => size !== want)
    .map(
      ({ line, size }) =>
        `${file}:${line}: ${what} says "${size}": write "${want}" (config.ts's BODY_LIMIT default, ${limit} bytes)`,
    );
}

/** haproxy.cfg's `tune.bufsize`, and the header room the comment above it names. */
function haproxyBuffer(config: string): { bufsize: number; headerRoomKib: number | undefined } {
  const lines = config.split('\n');
  const at = lines.findIndex((line) => /^\s*tune\.bufsize\s+\d+\s*$/.test(line));
  if (at < 0) throw new Error('deploy/haproxy.cfg: no tune.bufsize line');
  let start = at;
  while (start > 0 && /^\s*#/.test(lines[start - 1] ?? '')) start--;
  const comment = lines
    .slice(start, at)
    .map((line) => line.replace(/^\s*#\s?/, ''))
    .join(' ');
  const room = /\bBODY_LIMIT plus (\d+) KiB\b/.exec(comment)?.[1];
  return {
    bufsize: Number(/\d+/.exec(lines[at] ?? '')?.[0]),
    headerRoomKib: room === undefined ? undefined : Number(room),
  };
}

describe("the shipped proxies' body limit on POST /plants", () => {
  const limit = DEFAULTS.bodyLimitBytes;

  it('deploy/nginx.conf: client_max_body_size in `location = /plants` is BODY_LIMIT', () => {
    const block = /location = \/plants \{([^}]*)\}/.exec(repoFile('deploy/nginx.conf'))?.[1];
    const size = /client_max_body_size\s+(\S+);/.exec(block ?? '')?.[1] ?? '';
    expect(
      nginxBytes(size),
      `deploy/nginx.conf: set client_max_body_size in "location = /plants" to ${limit} bytes (config.ts's BODY_LIMIT default)`,
    ).toBe(limit);
  });

  it('deploy/nginx.conf: client_body_buffer_size keeps a body up to BODY_LIMIT in memory', () => {
    const sizes = [
      ...repoFile('deploy/nginx.conf').matchAll(/^\s*client_body_buffer_size\s+(\S+);/gm),
    ];
    expect(sizes, 'deploy/nginx.conf: one client_body_buffer_size').toHaveLength(1);
    expect(
      nginxBytes(sizes[0]?.[1] ?? ''),
      `deploy/nginx.conf: set client_body_buffer_size to at least ${limit} bytes (${stated(limit)}, config.ts's BODY_LIMIT default): a create larger than the buffer is written to a temporary file first, not kept in memory as its comment says`,
    ).toBeGreaterThanOrEqual(limit);
  });

  it('deploy/haproxy.cfg: every size rule of /plants is BODY_LIMIT', () => {
    const rules = repoFile('deploy/haproxy.cfg')
      .split('\n')
      .filter((line) =>
        /too_large if \{ req\.(hdr_val\(content-length\)|body_size) gt \d+ \}$/.test(line),
      );
    expect(rules).toHaveLength(2);
    for (const rule of rules) {
      expect(
        Number(/gt (\d+) \}$/.exec(rule)?.[1]),
        `deploy/haproxy.cfg: "${rule.trim()}" must compare with ${limit} (config.ts's BODY_LIMIT default)`,
      ).toBe(limit);
    }
  });

  it('deploy/haproxy.cfg: tune.bufsize holds a body over BODY_LIMIT beside its headers', () => {
    const { bufsize, headerRoomKib } = haproxyBuffer(repoFile('deploy/haproxy.cfg'));
    expect(
      headerRoomKib,
      'deploy/haproxy.cfg: the comment above tune.bufsize must name the room it keeps for the headers as "BODY_LIMIT plus <n> KiB"',
    ).toBeDefined();
    const room = (headerRoomKib ?? 0) * KIB;
    // A request's headers in a buffer: up to what the server reads (node:http's maxHeaderSize;
    // it refuses more before any body), haproxy's 1 KiB kept free (tune.maxrewrite) and its
    // record of each header (at most 101, tune.http.maxhdr): 2 KiB for these two (1 KiB let
    // 95 headers the server accepts hide a chunked body over the limit).
    expect(
      room,
      `deploy/haproxy.cfg: the header room its tune.bufsize comment names (${headerRoomKib} KiB) must be at least ${maxHeaderSize + 2 * KIB} bytes: the ${maxHeaderSize} bytes of headers the server reads (node:http's maxHeaderSize), 1 KiB haproxy keeps free (tune.maxrewrite) and 1 KiB for its record of each header`,
    ).toBeGreaterThanOrEqual(maxHeaderSize + 2 * KIB);
    expect(
      bufsize,
      `deploy/haproxy.cfg: set tune.bufsize to at least ${limit + room} (config.ts's BODY_LIMIT default, ${limit}, plus the ${headerRoomKib} KiB of header room its comment names): in a smaller buffer a chunked body over BODY_LIMIT fills it before the size rule sees it over, and haproxy streams the body on to an instance`,
    ).toBeGreaterThanOrEqual(limit + room);
  });
});

describe('the texts that state the default BODY_LIMIT', () => {
  for (const statement of STATEMENTS) {
    it(`${statement.file}: ${statement.what}`, () => {
      expect(statementProblems(statement, DEFAULTS.bodyLimitBytes)).toEqual([]);
    });
  }

  it('names each text that states another size', () => {
    const other = DEFAULTS.bodyLimitBytes * 2;
    for (const statement of STATEMENTS) {
      const problems = statementProblems(statement, other);
      expect(problems).toHaveLength(statement.count);
      for (const problem of problems) {
        expect(problem).toMatch(new RegExp(`^${statement.file}:\\d+: `));
        expect(problem).toMatch(`write "${stated(other)}"`);
      }
    }
    expect(stated(1000)).toBe('1000 bytes');
    expect(stated(1536 * KIB)).toBe('1536 KiB');
  });
});
