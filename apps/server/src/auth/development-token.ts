import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigError, type DatabaseLocation, StartupError } from '../config.ts';
import { makePrivateDirectory } from '../store/private-files.ts';

/** Next to the SQLite file, else in `./data/`. */
export function developmentTokenPath(location: DatabaseLocation): string {
  return join(location.kind === 'sqlite' ? dirname(location.filename) : 'data', 'dev-token');
}

/** Reads the token (narrowing its file to 0600), or makes one there that outlives restarts. */
export async function loadDevelopmentToken(
  file: string,
): Promise<{ token: string; file: string; created: boolean }> {
  try {
    makePrivateDirectory(dirname(file));
    const made = randomBytes(32).toString('base64url');
    // `wx`: two processes starting at once do not overwrite each other's token.
    const created = await writeFile(file, `${made}\n`, { mode: 0o600, flag: 'wx' }).then(
      () => true,
      (error: NodeJS.ErrnoException) => (error.code === 'EEXIST' ? false : Promise.reject(error)),
    );
    if (created) return { token: made, file, created };
    const token = (await readFile(file, 'utf8')).trim();
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) {
      throw new ConfigError(
        `Invalid development token file ${file}: it does not hold a token; delete it to get a new one`,
      );
    }
    await chmod(file, 0o600);
    return { token, file, created };
  } catch (error) {
    if (error instanceof StartupError) throw error;
    const why = error instanceof Error ? error.message : String(error); // Node's: code, call, path
    throw new StartupError(
      `cannot use the data directory ${dirname(file)} (of DATABASE_URL; the development token is kept there): ${why}; ` +
        'set DATABASE_URL to a file in a directory this user can write, or set PLANT_STORE_TOKENS',
      { cause: error },
    );
  }
}
