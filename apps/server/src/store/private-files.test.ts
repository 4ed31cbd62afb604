import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPrivateFile, looseDirectoryWarning, makePrivateDirectory } from './private-files.ts';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-private-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('private files', () => {
  it('makes a missing directory 0700 and leaves an existing one as it is', () => {
    makePrivateDirectory(join(folder, 'a', 'data'));
    expect(modeOf(join(folder, 'a', 'data'))).toBe(0o700);
    mkdirSync(join(folder, 'open'));
    chmodSync(join(folder, 'open'), 0o755);
    makePrivateDirectory(join(folder, 'open'));
    expect(modeOf(join(folder, 'open'))).toBe(0o755);
  });

  it('creates a file 0600 once; an existing file is kept, or refused when exclusive', () => {
    const file = join(folder, 'plants.db');
    createPrivateFile(file);
    expect(modeOf(file)).toBe(0o600);
    writeFileSync(file, 'kept');
    createPrivateFile(file);
    expect(() => createPrivateFile(file, { exclusive: true })).toThrow(/EEXIST/);
    expect(statSync(file).size).toBe(4);
  });

  it('warns about an existing directory others may enter, not about a private or missing one', () => {
    expect(looseDirectoryWarning(join(folder, 'open'))).toBe(
      `the data directory ${join(folder, 'open')} is mode 0755: other users of this host may read its files; run chmod 700 ${join(folder, 'open')}`,
    );
    expect(looseDirectoryWarning(join(folder, 'a', 'data'))).toBeUndefined();
    expect(looseDirectoryWarning(join(folder, 'missing'))).toBeUndefined();
  });
});
