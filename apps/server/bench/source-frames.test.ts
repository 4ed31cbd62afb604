import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SourceFrames } from './source-frames.ts';

const root = mkdtempSync(join(tmpdir(), 'source-frames-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, 'dist'));
// Generated line 1 comes from src/a.ts, line 2 from src/b.ts.
writeFileSync(join(root, 'dist', 'out.js'), 'function a() {}\nconst b = () => {};\n');
writeFileSync(
  join(root, 'dist', 'out.js.map'),
  JSON.stringify({
    version: 3,
    sources: ['../src/a.ts', '../src/b.ts'],
    names: [],
    mappings: 'AAAA;ACAA',
  }),
);
writeFileSync(join(root, 'dist', 'plain.js'), 'function c() {}\n');
const url = (file: string) => pathToFileURL(join(root, 'dist', file)).href;

describe('SourceFrames', () => {
  const frames = new SourceFrames(root);

  it('names the source module of a bundled frame, named or anonymous', () => {
    expect(frames.resolve(`JS:*a ${url('out.js')}:1:1`)).toBe(
      `JS:*a ${url('out.js')}:1:1 @src/a.ts`,
    );
    expect(frames.resolve(`JS:* ${url('out.js')}:2:11`)).toBe(
      `JS:* ${url('out.js')}:2:11 @src/b.ts`,
    );
  });

  it('leaves native frames, and JS frames of a file without a map, as they are', () => {
    expect(frames.resolve('llhttp__internal_execute')).toBe('llhttp__internal_execute');
    expect(frames.resolve(`JS:*c ${url('plain.js')}:1:1`)).toBe(`JS:*c ${url('plain.js')}:1:1`);
    expect(
      frames.resolve('JS:*processTicksAndRejections node:internal/process/task_queues:67:35'),
    ).toBe('JS:*processTicksAndRejections node:internal/process/task_queues:67:35');
  });
});
