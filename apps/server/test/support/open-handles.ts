import { readdirSync, readlinkSync } from 'node:fs';

/** Paths of this process's open files that are `file` or its -wal/-shm companions (Linux). */
export function openHandlesOf(file: string): string[] {
  const paths: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(file)) paths.push(target);
    } catch {
      // closed while listing
    }
  }
  return paths;
}
