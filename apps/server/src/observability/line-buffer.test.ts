import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LineBuffer } from './line-buffer.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A fresh file open for writing, as stdout redirected to a file is. */
function openFile(): { fd: number; text(): string } {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-lines-'));
  folders.push(folder);
  const file = join(folder, 'out.log');
  const fd = openSync(file, 'w');
  return { fd, text: () => readFileSync(file, 'utf8') };
}

const flushed = (lines: LineBuffer) => new Promise<void>((resolve) => lines.flush(resolve));

describe('LineBuffer', () => {
  it('holds lines until minLength, then writes them in order, in one write', () => {
    const out = openFile();
    const lines = new LineBuffer(out.fd, { minLength: 30, maxLength: 1000, flushMs: 60_000 });
    try {
      lines.write('one\n');
      lines.write('two ✓\n');
      expect(out.text()).toBe('');
      lines.write(`${'x'.repeat(30)}\n`);
      expect(out.text()).toBe(`one\ntwo ✓\n${'x'.repeat(30)}\n`);
    } finally {
      lines.destroy();
      closeSync(out.fd);
    }
  });

  // At the process's exit too: test/e2e/logger-stdout.test.ts (process.exit with 2,000 lines).
  it('writes what waits on a flush', async () => {
    const out = openFile();
    const lines = new LineBuffer(out.fd);
    try {
      lines.write('listening\n');
      lines.write('stopped\n');
      await flushed(lines);
      expect(out.text()).toBe('listening\nstopped\n');
    } finally {
      lines.destroy();
      closeSync(out.fd);
    }
  });

  it('drops new lines past maxLength waiting (a reader that stopped), and all once destroyed', async () => {
    const out = openFile();
    const lines = new LineBuffer(out.fd, { minLength: 10_000, maxLength: 100, flushMs: 60_000 });
    try {
      const taken = Array.from({ length: 20 }, (_, i) =>
        lines.write(`line ${String(i).padStart(4, '0')}\n`),
      );
      expect(taken.filter(Boolean)).toHaveLength(10); // 10 characters each: 100 in all
      await flushed(lines);
      expect(out.text().split('\n')).toHaveLength(11);
      lines.destroy();
      expect(lines.write('after\n')).toBe(false);
      await flushed(lines); // called back at once
      expect(out.text()).not.toContain('after');
    } finally {
      closeSync(out.fd);
    }
  });

  it('emits one error for a write that fails, then takes no more lines', async () => {
    const out = openFile();
    closeSync(out.fd); // EBADF: the descriptor is gone
    const lines = new LineBuffer(out.fd);
    const errors: NodeJS.ErrnoException[] = [];
    lines.on('error', (error: NodeJS.ErrnoException) => errors.push(error));
    lines.write('lost\n');
    await flushed(lines);
    expect(errors.map((error) => error.code)).toEqual(['EBADF']);
    expect(lines.write('more\n')).toBe(false);
  });
});
