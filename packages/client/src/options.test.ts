import { ofetch } from 'ofetch';
import { describe, expect, it } from 'vitest';
import { CLIENT_DEFAULTS, resolveClientConfig } from './options.ts';
import { wait } from './retry.ts';

const required = { baseUrl: 'http://127.0.0.1:3000', token: 'tok' };

describe('resolveClientConfig', () => {
  it('applies the defaults: 10 s timeout, 2 retries', () => {
    expect(resolveClientConfig(required)).toEqual({
      ...required,
      timeoutMs: 10_000,
      retry: { retries: 2, retryDelayMs: 250, maxRetryDelayMs: 10_000 },
      fetcher: ofetch,
      sleep: wait,
      pacer: undefined,
    });
    expect(CLIENT_DEFAULTS).toMatchObject({ timeoutMs: 10_000, retries: 2 });
  });

  it('keeps the options given', () => {
    const config = resolveClientConfig({
      ...required,
      timeoutMs: 50,
      retries: 0,
      retryDelayMs: 0,
      maxRetryDelayMs: 7,
      fetch: globalThis.fetch,
    });
    expect(config).toMatchObject({
      timeoutMs: 50,
      retry: { retries: 0, retryDelayMs: 0, maxRetryDelayMs: 7 },
    });
    expect(config.fetcher).not.toBe(ofetch);
  });

  it('refuses a baseUrl that is not an absolute http(s) URL', () => {
    for (const baseUrl of ['', '/plants', 'localhost:3000', 'ftp://example.com']) {
      expect(() => resolveClientConfig({ ...required, baseUrl })).toThrow(TypeError);
    }
  });

  it('refuses a token that cannot go in a header as is', () => {
    for (const token of ['', 'a b', 'a\r\nx-injected: 1', 'tökén']) {
      expect(() => resolveClientConfig({ ...required, token })).toThrow(TypeError);
    }
  });

  it('refuses a token or baseUrl that is not a non-empty string, naming the option', () => {
    // What `process.env.TOKEN!` is when TOKEN is unset, and other values a caller slips in.
    const cases: [unknown, string][] = [
      [undefined, 'got undefined'],
      [null, 'got null'],
      [12345, 'got a number'],
      [{ toString: () => 'tok' }, 'got an object'],
      ['', 'got ""'],
      ['   ', 'got "   "'],
    ];
    for (const [value, got] of cases) {
      for (const option of ['token', 'baseUrl'] as const) {
        const options = { ...required, [option]: value } as unknown as typeof required;
        expect(() => resolveClientConfig(options)).toThrow(
          new TypeError(`${option} must be a non-empty string, ${got}`),
        );
      }
    }
  });

  it('refuses out-of-range numbers, naming the option', () => {
    expect(() => resolveClientConfig({ ...required, timeoutMs: 0 })).toThrow('timeoutMs');
    expect(() => resolveClientConfig({ ...required, retries: -1 })).toThrow('retries');
    expect(() => resolveClientConfig({ ...required, retries: 1.5 })).toThrow('retries');
    expect(() => resolveClientConfig({ ...required, retryDelayMs: Number.NaN })).toThrow(
      'retryDelayMs',
    );
    expect(() => resolveClientConfig({ ...required, maxRetryDelayMs: -1 })).toThrow(
      'maxRetryDelayMs',
    );
  });
});
