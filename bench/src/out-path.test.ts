import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkWritable, outPath } from './out-path.ts';

const where = { benchDir: '/repo/bench', cwd: '/repo/bench', initCwd: '/home/me/repo' };

describe('outPath', () => {
  it('keeps a bare name in results/, with .md added', () => {
    expect(outPath('price-s9d', where)).toBe('/repo/bench/results/price-s9d.md');
  });

  it('takes an absolute path as it is (no results/, no second .md)', () => {
    expect(outPath('/tmp/x.md', where)).toBe('/tmp/x.md');
    expect(outPath('/tmp/report', where)).toBe('/tmp/report');
  });

  it('resolves a relative path against the directory the user typed the command in (INIT_CWD)', () => {
    expect(outPath('x.md', where)).toBe('/home/me/repo/x.md');
    expect(outPath('../out/x.md', where)).toBe('/home/me/out/x.md');
    expect(outPath('bench/results/probe.md', where)).toBe('/home/me/repo/bench/results/probe.md');
  });

  it('resolves against the process directory when pnpm gave no INIT_CWD', () => {
    expect(outPath('x.md', { benchDir: '/repo/bench', cwd: '/srv' })).toBe('/srv/x.md');
    expect(outPath('x.md', { ...where, initCwd: '' })).toBe('/repo/bench/x.md');
  });
});

describe('checkWritable', () => {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-bench-out-'));
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('passes for a new file in an existing directory, and leaves nothing behind', () => {
    expect(() => checkWritable(join(folder, 'x.md'))).not.toThrow();
    writeFileSync(join(folder, 'old.md'), 'earlier figures');
    expect(() => checkWritable(join(folder, 'old.md'))).not.toThrow();
    expect(readdirSync(folder)).toEqual(['old.md']);
  });

  it('says a missing directory before the run', () => {
    expect(() => checkWritable(join(folder, 'missing', 'x.md'))).toThrow(
      `the directory ${join(folder, 'missing')} does not exist`,
    );
  });

  it('says when the parent is a file, or the target a directory', () => {
    writeFileSync(join(folder, 'file'), '');
    expect(() => checkWritable(join(folder, 'file', 'x.md'))).toThrow(/is not a directory/);
    mkdirSync(join(folder, 'sub'));
    expect(() => checkWritable(join(folder, 'sub'))).toThrow(/that is a directory/);
  });

  it('says a directory nobody may create a file in (sysfs: root too)', () => {
    expect(() => checkWritable('/sys/x.md')).toThrow(
      '--out /sys/x.md: cannot write in /sys (EACCES)',
    );
  });
});
