import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, statSync } from 'node:fs';

// The data directory and the files the server creates in it are the service user's alone:
// 0700 and 0600 whatever the umask (SQLite gives -wal and -shm the database file's mode).

/** Makes `dir` (and missing parents) mode 0700 when it does not exist; an existing one is kept. */
export function makePrivateDirectory(dir: string): void {
  if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700);
}

/**
 * Creates `file` empty with mode 0600 unless it exists; with `exclusive`, an existing file is
 * an error (EEXIST). Returns whether it made it.
 */
export function createPrivateFile(file: string, { exclusive = false } = {}): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if (!exclusive && (error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The warning for an existing `dir` that others may enter, else undefined. */
export function looseDirectoryWarning(dir: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(dir).mode;
  } catch {
    return undefined; // not there (yet), or not reachable: the start says so if it matters
  }
  if ((mode & 0o077) === 0) return undefined;
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return `the data directory ${dir} is mode ${octal}: other users of this host may read its files; run chmod 700 ${dir}`;
}
