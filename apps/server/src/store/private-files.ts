import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';

// 0700 and 0600 whatever the umask (SQLite gives -wal and -shm the database file's mode).

/** An existing `dir` keeps its mode. */
export function makePrivateDirectory(dir: string): void {
  if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700);
}

/** Creates `file` empty unless it exists (with `exclusive`: EEXIST). */
export function createPrivateFile(file: string, { exclusive = false } = {}): void {
  try {
    writeFileSync(file, '', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (!exclusive && (error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  chmodSync(file, 0o600);
}

export function looseDirectoryWarning(dir: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(dir).mode;
  } catch {
    return undefined; // the start says so if it matters
  }
  if ((mode & 0o077) === 0) return undefined;
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return `the data directory ${dir} is mode ${octal}: other users of this host may read its files; run chmod 700 ${dir}`;
}
