import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

describe('createLogger', () => {
  it('writes JSON lines, with a stray token and Authorization header redacted', async () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    const logger = createLogger('info', { destination: stream });
    const headers = { authorization: 'Bearer secret-one' };
    logger.info({ token: 'secret-two', req: { headers } }, 'request');
    await new Promise((resolve) => setImmediate(resolve));
    expect(JSON.parse(text)).toMatchObject({
      msg: 'request',
      service: 'plant-store',
      token: '[Redacted]',
      req: { headers: { authorization: '[Redacted]' } },
    });
    expect(text).not.toContain('secret');
  });
});
