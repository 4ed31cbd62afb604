import { readFileSync } from 'node:fs';

// Where a server's on-CPU time goes, per request, by part: reads `perf script` output of
// `perf record -e cpu-clock -g` on a server started with `node --perf-basic-prof` (all its
// threads, kernel included; unlike --cpu-prof, a thread blocked in fsync is not sampled).
// Each main-thread sample goes to the innermost frame that belongs to a known part (so
// node's stream code called by raw-body counts as HTTP, raw-body's own code as body
// reading); GC anywhere on the stack counts as GC. Other threads go by what they run.
//
//   node --import tsx bench/perf-account.ts perf.txt MAIN_TID REQUESTS [SAMPLE_US]
//
// See bench/README.md ("Where the time goes") for the whole recipe.

/** Parts of the main thread's work, tried from the innermost frame outwards. */
const PARTS: readonly (readonly [string, RegExp])[] = [
  ['store: SQLite commit', /better_sqlite3|sqlite3|commitPlants|createRow|createInTransaction/],
  [
    'store: queue, timing',
    /GroupCommitQueue|startBatch|#settle|settle |submit |observeCommit|measureStore|checkFiles|noteWrite|createPlant/,
  ],
  ['log', /pino|sonic-boom|LineChunker|handOver|requestLogWriter|writeRequestLine|line-chunker/],
  ['metrics', /prom-client|requestObserver|labelsOf|observe /],
  [
    'rate limit',
    /rate-limiter-flexible|limitedAuthentication|RateLimits|consumeCredential|checkAddress|boundedKey|keyOf/,
  ],
  [
    'auth',
    /checkBearer|admit |digestToken|TokenRegistry|authenticate|verify |node:crypto|crypto\/hash/,
  ],
  [
    'validation (JSON parse + zod)',
    /zod|lossless-json|parseCanonicalNewPlant|parseLosslessly|parseJson|validate |TextDecoder|encoding:/,
  ],
  [
    'body reading (koa-bodyparser)',
    /koa-bodyparser|co-body|raw-body|inflation|type-is|media-typer|readJsonBody|bytes\/index/,
  ],
  [
    'router (@koa/router)',
    /@koa\/router|path-to-regexp|serveRoute|runFrom|send |toJsonText|koa__router/,
  ],
  [
    'request bookkeeping (id, headers, errors)',
    /withRequestContext|requestContext|randomUUID|answerError|finish /,
  ],
  [
    'framework (Koa)',
    /\/koa\/|koa-compose|on-finished|ee-first|statuses|delegates|only\/|vary|accepts|content-type|encodeurl|escape-html|http-errors|parseurl|fresh|koa\/lib|handleRequest|respond /,
  ],
  [
    'HTTP + event loop (node, llhttp, libuv, sockets)',
    /node:|llhttp|uv_|_http_|internal\/|tcp_|sock|epoll|Builtins_RunMicrotasks|MicrotaskQueue/,
  ],
];

const GC =
  /Scaveng|MarkCompact|Heap::|Sweeper|Evacuat|ConcurrentMarking|MinorMC|GCTracer|MemoryAllocator|Marking/;
const JIT = /compiler::|Compile|Maglev|Turbofan|Pipeline|Sparkplug|Baseline|OptimizingCompile/;

const [file, mainTidText, requestsText, sampleUsText] = process.argv.slice(2);
if (file === undefined || mainTidText === undefined || requestsText === undefined) {
  throw new Error('usage: perf-account.ts PERF_SCRIPT_TXT MAIN_TID REQUESTS [SAMPLE_US]');
}
const mainTid = Number(mainTidText);
const requests = Number(requestsText);
const text = readFileSync(file, 'utf8');
const totals = new Map<string, number>();
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
  const frames = lines.slice(1).map((line) => line.trim());
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
      if (part !== undefined) break;
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
