import { createRequire } from 'node:module';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DESCRIPTOR_MARGIN, fitToDescriptorLimit, preloadRequestPath } from './descriptors.ts';

function capture(): { logger: pino.Logger; lines: Array<{ msg: string }> } {
  const lines: Array<{ msg: string }> = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('the connection cap and the descriptor limit', () => {
  it('keeps a cap that fits below the soft limit with the margin to spare, silently', () => {
    const { logger, lines } = capture();
    expect(fitToDescriptorLimit(900, logger, 1024)).toBe(900);
    expect(fitToDescriptorLimit(900, logger, 900 + DESCRIPTOR_MARGIN)).toBe(900);
    expect(fitToDescriptorLimit(900, logger, undefined)).toBe(900); // no /proc: kept
    expect(lines).toEqual([]);
  });

  it('lowers a cap that does not fit, with one warning naming both numbers', () => {
    const { logger, lines } = capture();
    expect(fitToDescriptorLimit(900, logger, 128)).toBe(128 - DESCRIPTOR_MARGIN);
    expect(fitToDescriptorLimit(900, logger, 10)).toBe(1);
    expect(lines[0]?.msg).toMatch(/MAX_CONNECTIONS=900 does not fit the descriptor limit of 128/);
  });
});

describe('preloadRequestPath', () => {
  it('loads the encodings of the iconv-lite that koa-bodyparser decodes bodies with', () => {
    // The copy raw-body (under co-body, under koa-bodyparser) requires, found as it finds it.
    let require = createRequire(import.meta.url);
    for (const name of ['koa-bodyparser', 'co-body', 'raw-body']) {
      require = createRequire(require.resolve(name));
    }
    const iconv = require('iconv-lite') as { encodings: unknown };
    // As at start: iconv-lite loads its table on the first decode (another test in this
    // thread may have decoded a body already).
    iconv.encodings = null;
    preloadRequestPath();
    expect(iconv.encodings).not.toBeNull();
  });
});
