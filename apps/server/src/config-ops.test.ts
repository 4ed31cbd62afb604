import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

// The operations settings: metrics listener, rate limits, proxies, CORS, keep-alive.

const TOKEN = 'a-long-enough-token-0123';
const load = (env: Record<string, string>) => loadConfig({ PLANT_STORE_TOKENS: TOKEN, ...env });

describe('operations settings', () => {
  it('have no metrics listener and CORS off by default', () => {
    const config = load({});
    expect(config.metrics).toBeUndefined();
    expect(config.corsOrigins).toEqual([]);
  });

  it('read every variable', () => {
    const config = load({
      METRICS_PORT: '9464',
      METRICS_HOST: '0.0.0.0',
      RATE_LIMIT_PER_MINUTE: '120',
      AUTH_FAILURES_PER_MINUTE: '0',
      TRUST_PROXY_HOPS: '2',
      CORS_ORIGINS: ' https://app.example.com ,http://localhost:5173,',
      KEEP_ALIVE_TIMEOUT_SECONDS: '620',
    });
    expect(config).toMatchObject({
      metrics: { port: 9464, host: '0.0.0.0' },
      rateLimit: { perTokenPerMinute: 120, authFailuresPerMinute: 0 },
      trustProxyHops: 2,
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
      keepAliveTimeoutMs: 620_000,
    });
    expect(load({ METRICS_PORT: '0' }).metrics).toEqual({ port: 0, host: '127.0.0.1' });
  });

  it.each([
    [{ METRICS_PORT: '3000' }, /METRICS_PORT: must differ from PORT/],
    [{ METRICS_PORT: 'nine' }, /METRICS_PORT: /],
    [{ METRICS_PORT: '65536' }, /METRICS_PORT: must be 0..65535/],
    [{ RATE_LIMIT_PER_MINUTE: '-1' }, /RATE_LIMIT_PER_MINUTE: must be 0 or more/],
    [{ AUTH_FAILURES_PER_MINUTE: '2.5' }, /AUTH_FAILURES_PER_MINUTE: must be a whole number/],
    [{ TRUST_PROXY_HOPS: '11' }, /TRUST_PROXY_HOPS: must be 0..10/],
    [{ CORS_ORIGINS: '*' }, /CORS_ORIGINS.0: each origin must be scheme:\/\/host/],
    [{ CORS_ORIGINS: 'https://app.example.com/' }, /CORS_ORIGINS.0: /],
    [{ CORS_ORIGINS: 'https://ok.example.com,app.example.com' }, /CORS_ORIGINS.1: /],
    [{ CORS_ORIGINS: 'ftp://files.example.com' }, /CORS_ORIGINS.0: /],
    [{ KEEP_ALIVE_TIMEOUT_SECONDS: '0' }, /KEEP_ALIVE_TIMEOUT_SECONDS: must be at least 1/],
  ])('name the problem in %o', (env, message) => {
    expect(() => load(env)).toThrow(message);
  });
});
