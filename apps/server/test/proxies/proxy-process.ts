import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { watchChild } from '../support/child-output.ts';
import { memoryMb } from '../support/process-stats.ts';

// Debian's nginx and haproxy, run in the foreground on the shipped deploy/ files with only the
// listen port and the instances' ports changed (and haproxy's lua-load, to the file beside it
// in deploy/): the substitutions below are the whole difference, each a line the file must hold
// (a renamed line fails the start instead of testing something else). nginx writes its pid,
// logs and docs cache where the shipped file says (/run, /var/log/nginx, /var/lib/nginx), as
// on a server: the tier runs as root, one proxy at a time.

export const NGINX = '/usr/sbin/nginx';
export const HAPROXY = '/usr/sbin/haproxy';
const DEPLOY = fileURLToPath(new URL('../../../../deploy/', import.meta.url));

export type ProxyKind = 'nginx' | 'haproxy';

export interface ProxyProcess {
  /** Base URL clients use, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** What the proxy wrote (haproxy's request log; nginx's error log is in `errorLog()`). */
  output(): string;
  /** nginx's error log (upstream errors, retries); '' for haproxy. */
  errorLog(): string;
  /** nginx's access log (a status per request, 408 for one closed by a timeout); '' for haproxy. */
  accessLog(): string;
  /** The proxy's resident memory (nginx: its master and workers together), in MiB. */
  residentMb(): number;
  stop(): Promise<void>;
}

/** The shipped file with its ports replaced; throws if a line to replace is missing. */
export function shippedConfig(
  kind: ProxyKind,
  listenPort: number,
  upstreamPorts: readonly [number, number],
): string {
  const file = kind === 'nginx' ? 'nginx.conf' : 'haproxy.cfg';
  const replacements: Array<[RegExp, string]> =
    kind === 'nginx'
      ? [
          [/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${listenPort};`],
          [/^(\s*server) 127\.0\.0\.1:3001 /m, `$1 127.0.0.1:${upstreamPorts[0]} `],
          [/^(\s*server) 127\.0\.0\.1:3002 /m, `$1 127.0.0.1:${upstreamPorts[1]} `],
        ]
      : [
          [/^(\s*bind) :80 /m, `$1 127.0.0.1:${listenPort} `],
          // Each instance is named in two backends (plant_store, docs_assets).
          [/^(\s*server a) 127\.0\.0\.1:3001 /gm, `$1 127.0.0.1:${upstreamPorts[0]} `],
          [/^(\s*server b) 127\.0\.0\.1:3002 /gm, `$1 127.0.0.1:${upstreamPorts[1]} `],
          [/^(\s*lua-load) \/etc\/haproxy\//m, `$1 ${DEPLOY}`],
        ];
  return replaceLines(kind, readFileSync(join(DEPLOY, file), 'utf8'), replacements);
}

/**
 * `config` (the shipped file of `kind`, from `shippedConfig`) with each pattern replaced;
 * throws if one matches nothing. The one way a test changes a shipped file: ports and paths
 * above, and a test's variant (a number lowered so that a test need not wait 30 s or send
 * 100,000 requests), each named where it is used.
 */
export function replaceLines(
  kind: ProxyKind,
  config: string,
  replacements: ReadonlyArray<readonly [RegExp, string]>,
): string {
  let text = config;
  for (const [pattern, replacement] of replacements) {
    if (text.match(pattern) === null)
      throw new Error(
        `deploy/${kind === 'nginx' ? 'nginx.conf' : 'haproxy.cfg'} has no line matching ${pattern}`,
      );
    text = text.replace(pattern, replacement);
  }
  return text;
}

/**
 * Starts `kind` in the foreground with `config` (from `shippedConfig`, or a variant of it for a
 * measurement) on `listenPort`; resolves once it answers `/healthz` through an upstream (with
 * `readyStatus`, once it answers `/healthz` with that status: 503 with no upstream).
 */
export async function startProxy(
  kind: ProxyKind,
  listenPort: number,
  config: () => string,
  readyStatus = 200,
): Promise<ProxyProcess> {
  const folder = mkdtempSync(join(tmpdir(), `plant-store-${kind}-`));
  const file = join(folder, kind === 'nginx' ? 'nginx.conf' : 'haproxy.cfg');
  const text = config();
  writeFileSync(file, text);
  // nginx's logs are the shipped file's: this run's lines are those after their size now.
  const logOf = (pattern: RegExp) => {
    const path = kind === 'nginx' ? pattern.exec(text)?.[1] : undefined;
    if (path === undefined) return () => '';
    const from = sizeOf(path);
    return () => {
      try {
        return readFileSync(path).subarray(from).toString('utf8');
      } catch {
        return '';
      }
    };
  };
  const errorLog = logOf(/^error_log (\S+)/m);
  const accessLog = logOf(/^\s*access_log (\S+);/m);
  const args = kind === 'nginx' ? ['-c', file, '-g', 'daemon off;'] : ['-f', file, '-db'];
  const child = spawn(kind === 'nginx' ? NGINX : HAPROXY, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output, stop: stopProxy } = watchChild(child);
  const url = `http://127.0.0.1:${listenPort}`;
  const stop = async () => {
    await stopProxy();
    rmSync(folder, { recursive: true, force: true });
  };
  // nginx: the master and its workers; haproxy: one process.
  const pids = () => {
    const pid = child.pid ?? 0;
    try {
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
      return [pid, ...children.split(' ').filter(Boolean).map(Number)];
    } catch {
      return [pid];
    }
  };
  const residentMb = () => pids().reduce((sum, pid) => sum + memoryMb(pid, 'VmRSS'), 0);
  try {
    await untilServing(url, child, () => `${output()}${errorLog()}`, readyStatus);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, output, errorLog, accessLog, residentMb, stop };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Polls `${url}/healthz` until it answers `status` (20 s at most, or the process exits). */
async function untilServing(
  url: string,
  child: ChildProcess,
  log: () => string,
  status: number,
): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`proxy exited (${child.exitCode}): ${log()}`);
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.status === status) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`proxy did not answer /healthz ${status} within 20 s: ${log()}`);
}
