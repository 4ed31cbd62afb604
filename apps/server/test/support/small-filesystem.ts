import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Mounting a file system needs root (CI runs as root); tests that need one skip otherwise. */
export const CAN_MOUNT = process.getuid?.() === 0;

/** A size-limited tmpfs mounted for one test. */
export interface SmallFilesystem {
  /** Where it is mounted. */
  readonly dir: string;
  /** Bytes still free for files on it. */
  free(): number;
  /** Takes all free space but `leaveBytes` with a file (`filler`); returns its path. */
  fill(leaveBytes: number): string;
  /** Unmounts it (lazily, should a file still be open) and removes the mount point. */
  unmount(): void;
}

/**
 * Mounts a tmpfs of `sizeBytes` on a new temporary directory: a real file system that fills
 * up, for tests of what a full disk does. Needs root (see `CAN_MOUNT`).
 *
 * @example
 * const disk = mountSmallFilesystem(4 * 1024 * 1024);
 * disk.fill(512 * 1024);
 * disk.unmount();
 */
export function mountSmallFilesystem(sizeBytes: number): SmallFilesystem {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-small-fs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0777`, 'tmpfs', dir]);
  const free = () => {
    const { bavail, bsize } = fs.statfsSync(dir);
    return bavail * bsize;
  };
  return {
    dir,
    free,
    fill(leaveBytes) {
      const filler = path.join(dir, 'filler');
      const bytes = free() - leaveBytes;
      if (bytes > 0) fs.writeFileSync(filler, Buffer.alloc(bytes), { flag: 'a' });
      return filler;
    },
    unmount() {
      execFileSync('umount', ['-l', dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
