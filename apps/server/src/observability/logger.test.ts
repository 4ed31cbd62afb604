import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bufferedDestination, createLogger, flushBuffered, wantsPrettyLogs } from './logger.ts';

function captureStream(): { stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

describe('pretty logs', () => {
  it('are for a terminal outside production only', () => {
    expect(wantsPrettyLogs(false, true)).toBe(true);
    expect(wantsPrettyLogs(true, true)).toBe(false);
    expect(wantsPrettyLogs(false, false)).toBe(false);
    expect(wantsPrettyLogs(false, undefined)).toBe(false);
  });

  it('write readable lines instead of JSON', async () => {
    const logged = captureStream();
    const logger = createLogger('info', { pretty: true, destination: logged.stream });
    logger.info({ route: '/plants', status: 200 }, 'request');
    await new Promise((resolve) => setImmediate(resolve));
    const text = logged.text();
    expect(text).toMatch(/INFO.*request/);
    expect(text).toContain('route: "/plants"');
    expect(() => JSON.parse(text.split('\n')[0] ?? '')).toThrow();
  });
});

describe('the lines buffered at exit', () => {
  it('are all written, even those logged while a write was under way', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-logger-'));
    const file = join(folder, 'out.log');
    const destination = bufferedDestination(file); // as stdout's: lines held until 16 KiB

    await new Promise((resolve) => destination.once('ready', resolve));
    try {
      destination.write('listening\n');
      destination.flush(); // the start-up line's write is under way...
      destination.write('shutting down\n'); // ...when the shutdown's lines come
      destination.write('stopped\n');
      await flushBuffered(destination);
      // One flush called back once the first write ended: 'listening\n' alone.
      expect(readFileSync(file, 'utf8')).toBe('listening\nshutting down\nstopped\n');
    } finally {
      destination.destroy();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
