import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SourceFrames } from './source-frames.ts';

// Where a server's on-CPU time goes, per request, by part: reads `perf script` output of
// `perf record -e cpu-clock -g` on a server started with `node --perf-basic-prof` (all its
// threads, kernel included; unlike --cpu-prof, a thread blocked in fsync is not sampled).
// Each main-thread sample goes to the innermost frame that belongs to a known part (so
// node's stream code called by raw-body counts as HTTP, raw-body's own code as body
// reading); GC anywhere on the stack counts as GC. Other threads go by what they run.
// A frame of the bundle is also known by its source module (`source-frames.ts` reads
// dist/*.js.map), so the bundle's anonymous callbacks count for their module.
//
//   node --import tsx bench/perf-account.ts perf.txt MAIN_TID REQUESTS [SAMPLE_US] [--detail PART [--top N]] [--innermost REGEX]
//
// See bench/README.md ("Where the time goes") for the whole recipe.

/** A source module of this repository (a bundled frame named by `SourceFrames`). */
const source = (pattern: string): string => ` @(?:apps/server/src|packages/[a-z]+/src)/${pattern}`;
/** Names in frames, or source modules (`source(…)`), joined into one pattern. */
const part = (...patterns: string[]): RegExp => new RegExp(patterns.join('|'));

/** Parts of the main thread's work, tried from the innermost frame outwards. */
const PARTS: readonly (readonly [string, RegExp])[] = [
  [
    'store: SQLite commit',
    part(
      'better_sqlite3|sqlite3|commitPlants|createRow|createInTransaction',
      source('store/sqlite/'),
    ),
  ],
  [
    'store: queue, timing, file checks',
    part(
      'GroupCommitQueue|startBatch|#settle|settle |submit |observeCommit|measureStore|checkFiles|noteWrite|createPlant',
      // The stat() of the database files after each commit (checkFiles), in node and libuv.
      'getStatsFromBinding|uv__fs_statx|statSync',
      source('(store/|observability/store-timing)'),
    ),
  ],
  [
    'log',
    part(
      'pino|sonic-boom|LineChunker|handOver|requestLogWriter|writeRequestLine|line-chunker',
      source('observability/(request-log|logger|line-chunker)'),
    ),
  ],
  [
    'metrics',
    part(
      'prom-client|requestObserver|labelsOf|observe ',
      source('(observability/metrics|http/request-metrics)'),
    ),
  ],
  [
    'rate limit',
    part(
      'rate-limiter-flexible|limitedAuthentication|RateLimits|consumeCredential|checkAddress|boundedKey|keyOf',
      source('limits/'),
    ),
  ],
  [
    'auth',
    part(
      'checkBearer|admit |digestToken|TokenRegistry|authenticate|verify |node:crypto|crypto\\/hash|node::crypto::Hash',
      source('(auth/|http/require-bearer)'),
    ),
  ],
  [
    'validation (JSON parse + zod)',
    part(
      'zod|lossless-json|parseCanonicalNewPlant|parseLosslessly|parseJson|validate |TextDecoder|encoding:',
      // The schema package: the contract's schemas and the exact int64 decoding.
      ' @packages/schema/src/',
    ),
  ],
  [
    'body reading (koa-bodyparser)',
    part(
      'koa-bodyparser|co-body|raw-body|inflation|type-is|media-typer|readJsonBody|bytes\\/index',
      source('http/json-body'),
    ),
  ],
  [
    'router (@koa/router)',
    part(
      '@koa\\/router|path-to-regexp|serveRoute|runFrom|send |toJsonText|koa__router',
      source('(http/contract-router|handlers)'),
    ),
  ],
  [
    'request bookkeeping (id, headers, errors)',
    part(
      'withRequestContext|requestContext|randomUUID|getBufferedUUID|answerError|finish ',
      source('http/(request-context|error-responder|to-api-error|api-error|client-error|cors)'),
    ),
  ],
  [
    'server hooks (shutdown, lingering close, timeouts)',
    part(source('(http/(graceful-shutdown|lingering-close|timeouts|protocol-checks)|server)\\.ts')),
  ],
  [
    'framework (Koa)',
    /\/koa\/|koa-compose|on-finished|ee-first|statuses|delegates|only\/|vary|accepts|content-type|encodeurl|escape-html|http-errors|parseurl|fresh|koa\/lib|handleRequest|respond /,
  ],
  [
    // V8 running promise reactions and node's nextTick queue, with nothing more specific inside.
    'promise hand-offs (microtasks, nextTick)',
    /Builtins_RunMicrotasks|MicrotaskQueue|RunMicrotasks|processTicksAndRejections|runNextTicks/,
  ],
  [
    'HTTP + event loop (node, llhttp, libuv, sockets)',
    /node:|llhttp|uv_|_http_|internal\/|tcp_|sock|epoll/,
  ],
];

const GC =
  /Scaveng|MarkCompact|Heap::|Sweeper|Evacuat|ConcurrentMarking|MinorMC|GCTracer|MemoryAllocator|Marking/;
const JIT = /compiler::|Compile|Maglev|Turbofan|Pipeline|Sparkplug|Baseline|OptimizingCompile/;

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  // --detail PREFIX: also list the frames that decided the samples of the parts whose name
  // starts with PREFIX (e.g. --detail HTTP), with the innermost frame of each; --top N: how
  // many of them (default 40; all of them to compare two runs frame by frame).
  // --innermost REGEX: also count the main thread's samples whose innermost frame matches
  // (e.g. V8's slow paths: Runtime_DefineKeyedOwnPropertyInLiteral|MigrateToMap).
  options: {
    detail: { type: 'string' },
    top: { type: 'string', default: '40' },
    innermost: { type: 'string' },
  },
});
const [file, mainTidText, requestsText, sampleUsText] = positionals;
if (file === undefined || mainTidText === undefined || requestsText === undefined) {
  throw new Error(
    'usage: perf-account.ts PERF_SCRIPT_TXT MAIN_TID REQUESTS [SAMPLE_US] [--detail PART [--top N]] [--innermost REGEX]',
  );
}
const mainTid = Number(mainTidText);
const top = Number(options.top);
if (!Number.isInteger(top) || top < 1)
  throw new Error(`--top must be a whole number > 0, not ${options.top}`);
const innermost = options.innermost === undefined ? undefined : new RegExp(options.innermost);
let innermostSamples = 0;
const requests = Number(requestsText);
const text = readFileSync(file, 'utf8');
// Frames of the bundle are named by their source module (dist/*.js.map), paths from the repo root.
const sourceFrames = new SourceFrames(join(import.meta.dirname, '..', '..', '..'));
const totals = new Map<string, number>();
/** For --detail: "deciding frame ← innermost frame" → samples. */
const details = new Map<string, number>();
/** A frame without its address, its source position, and V8's optimization mark. */
const shortFrame = (frame: string): string =>
  frame
    .replace(/^[0-9a-f]+\s+/, '')
    .replace(/\+0x[0-9a-f]+/, '')
    .replace(/ \(\/tmp\/perf-\d+\.map\)| \(\S+\)$/, '')
    .replace(/^JS:[*~^+]?/, '')
    .replace(/file:\/\/\/\S*?(node_modules\/\.pnpm\/|apps\/|packages\/)/, '')
    .slice(0, 110);
let samples = 0;
let sampleUs = Number(sampleUsText ?? 0);
for (const block of text.split('\n\n')) {
  const lines = block.split('\n').filter((line) => line.trim() !== '');
  const header = lines[0];
  if (header === undefined) continue;
  const head = /^\s*\S.*?\s+(\d+)(?:\/(\d+))?\s+[\d.]+:\s+(\d+)\s+cpu-clock/.exec(header);
  if (head === null) continue;
  const tid = Number(head[2] ?? head[1]);
  if (sampleUs === 0) sampleUs = Number(head[3]) / 1000;
  const frames = lines.slice(1).map((line) => sourceFrames.resolve(line.trim()));
  if (tid === mainTid && innermost?.test(frames[0] ?? '')) innermostSamples += 1;
  let part: string | undefined;
  if (frames.some((frame) => GC.test(frame))) {
    part = tid === mainTid ? 'GC (main thread)' : 'GC (helper threads)';
  } else if (tid !== mainTid) {
    if (frames.some((frame) => /sqlite/.test(frame))) part = 'checkpoint worker (own thread)';
    else if (frames.some((frame) => JIT.test(frame))) part = 'JIT (other threads)';
    else part = 'other threads';
  } else {
    for (const frame of frames) {
      part = PARTS.find(([, pattern]) => pattern.test(frame))?.[0];
      if (part === undefined) continue;
      if (options.detail !== undefined && part.startsWith(options.detail)) {
        const key = `${shortFrame(frame)}  ←  ${shortFrame(frames[0] ?? '')}`;
        details.set(key, (details.get(key) ?? 0) + 1);
      }
      break;
    }
    if (part === undefined) {
      part = frames.some((frame) => JIT.test(frame))
        ? 'JIT (main thread)'
        : 'main thread, unattributed (native, kernel)';
    }
  }
  totals.set(part, (totals.get(part) ?? 0) + 1);
  samples += 1;
}
const rows = [...totals].sort((a, b) => b[1] - a[1]);
process.stdout.write(
  `${samples} samples of ${sampleUs} µs, ${requests} requests: ${((samples * sampleUs) / requests).toFixed(1)} µs CPU/req\n\n| part | µs/req | share |\n|---|---|---|\n`,
);
for (const [part, count] of rows) {
  process.stdout.write(
    `| ${part} | ${((count * sampleUs) / requests).toFixed(1)} | ${((100 * count) / samples).toFixed(1)} % |\n`,
  );
}
if (details.size > 0) {
  process.stdout.write(`\n${options.detail}: deciding frame ← innermost frame, µs/req\n`);
  for (const [key, count] of [...details].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((count * sampleUs) / requests).toFixed(2).padStart(7)}  ${key}\n`);
  }
}
if (innermost !== undefined) {
  process.stdout.write(
    `\nmain thread, innermost frame /${innermost.source}/: ${innermostSamples} samples, ${((innermostSamples * sampleUs) / requests).toFixed(2)} µs/req\n`,
  );
}
