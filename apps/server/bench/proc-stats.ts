import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let clockTicks: number | undefined;

/** Clock ticks per second of /proc times (`getconf CLK_TCK`, 100 on Linux). */
function ticksPerSecond(): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return clockTicks;
}

/**
 * CPU time (user + system, all threads) a process has used so far, in microseconds, from
 * `/proc/<pid>/stat` fields 14 and 15. Linux only.
 *
 * @example
 * const before = cpuMicros(child.pid);
 * // … load …
 * const perRequest = (cpuMicros(child.pid) - before) / requests;
 */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: split after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field 14 (utime) is fields[11] and 15 (stime) fields[12].
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`Unreadable /proc/${pid}/stat: ${stat}`);
  return (ticks / ticksPerSecond()) * 1e6;
}

/**
 * CPU time of a process and every living descendant (`cpuMicros` of each), in microseconds:
 * a server with WEB_CONCURRENCY > 1 works in its cluster workers, not in the process the
 * bench started. Children are read from `/proc/<pid>/task/<tid>/children`. Linux only.
 *
 * @example
 * const before = treeCpuMicros(server.pid);
 */
export function treeCpuMicros(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    try {
      total += cpuMicros(member);
    } catch {
      // Exited between the listing and the read: its time is gone with it.
    }
  }
  return total;
}

/** `pid` and its living descendants. */
function processTree(pid: number): number[] {
  const found = [pid];
  for (let index = 0; index < found.length; index += 1) {
    const parent = found[index] as number;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const text = readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').trim();
        if (text !== '') found.push(...text.split(' ').map(Number));
      } catch {
        // The task ended meanwhile.
      }
    }
  }
  return found;
}

/**
 * Resident set size of a process in bytes (`VmRSS` of `/proc/<pid>/status`). Linux only.
 *
 * @example
 * rssBytes(process.pid); // e.g. 52_428_800
 */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`No VmRSS in /proc/${pid}/status`);
  return Number(kib) * 1024;
}
