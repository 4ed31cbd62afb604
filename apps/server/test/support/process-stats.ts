import { readFileSync, writeFileSync } from 'node:fs';

// A process's own figures from /proc (Linux): its memory and CPU, not the test's.

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * A line of /proc/<pid>/status in MiB: `VmRSS` (resident now) or `VmHWM` (the peak since
 * the start or the last {@link resetPeakMemory}).
 *
 * @example
 * memoryMb(server.child.pid, 'VmRSS'); // 118.4
 */
export function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) / 1024;
}

/** Starts the peak (VmHWM) afresh from the current resident size (Linux: clear_refs 5). */
export function resetPeakMemory(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/**
 * The CPU time the process used so far (user + system, every thread), in µs, at the 10 ms
 * resolution of /proc/<pid>/stat.
 *
 * @example
 * const before = cpuMicros(pid); // … requests …; (cpuMicros(pid) - before) / requests
 */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: split after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`unreadable /proc/${pid}/stat: ${stat}`);
  return (ticks / TICKS_PER_SECOND) * 1e6;
}
