import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, wantsPrettyLogs } from './logger.ts';

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
