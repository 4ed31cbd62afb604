import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadStoreConfig } from './config.ts';

const TOKEN = 'a-long-enough-token-0123';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ PLANT_STORE_TOKENS: TOKEN });
    expect(config).toEqual({
      production: false,
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: './data/plants.db',
      tokens: [TOKEN],
      developmentToken: false,
      bodyLimitBytes: 65536,
      logLevel: 'info',
      durability: 'full',
      postgres: {
        poolMax: 10,
        connectTimeoutMs: 2000,
        statementTimeoutMs: 5000,
        startupWaitMs: 0,
      },
      rateLimit: { perSecond: 100, burst: 200, authFailuresPerMinute: 30 },
      trustProxyHops: 0,
      corsOrigins: [],
      keepAliveTimeoutMs: 65_000,
      maxConnections: 900,
      shutdownDelayMs: 0,
      webConcurrency: 1,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'file:/var/lib/plants.db',
      PLANT_STORE_TOKENS: ` ${TOKEN} , second-token-abcdefgh,`,
      BODY_LIMIT: '1mb',
      LOG_LEVEL: 'warn',
      DURABILITY: 'normal',
      PG_POOL_MAX: '25',
      PG_CONNECT_TIMEOUT_MS: '1500',
      PG_STATEMENT_TIMEOUT_MS: '8000',
      PG_STARTUP_WAIT_MS: '0',
    });
    expect(config).toMatchObject({
      production: true,
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'file:/var/lib/plants.db',
      tokens: [TOKEN, 'second-token-abcdefgh'],
      bodyLimitBytes: 1024 * 1024,
      logLevel: 'warn',
      durability: 'normal',
      postgres: { poolMax: 25, connectTimeoutMs: 1500, statementTimeoutMs: 8000, startupWaitMs: 0 },
    });
  });

  it('asks for the development token outside production when none is configured', () => {
    const config = loadConfig({});
    expect(config.tokens).toEqual([]);
    expect(config.developmentToken).toBe(true);
    expect(loadConfig({ PLANT_STORE_TOKENS: TOKEN }).developmentToken).toBe(false);
  });

  it('leaves production without tokens to the start-up check of managed tokens', () => {
    const config = loadConfig({ NODE_ENV: 'production' });
    expect(config.tokens).toEqual([]);
    expect(config.developmentToken).toBe(false);
  });

  it.each([
    [{ PORT: '70000' }, /PORT: must be 0..65535/],
    [{ PORT: '1.5' }, /PORT: must be a whole number/],
    // Text gets the same plain words as a number out of range, not zod's "received NaN".
    [{ PORT: 'abc' }, /^Invalid configuration: PORT: must be a whole number, 0\.\.65535$/],
    [{ PG_CONNECT_TIMEOUT_MS: 'soon' }, /: must be a whole number, at least 1 \(milliseconds\)$/],
    [{ METRICS_PORT: '-1' }, /^Invalid configuration: METRICS_PORT: must be 0\.\.65535$/],
    [{ BODY_LIMIT: 'lots' }, /BODY_LIMIT: must be a size/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL: /],
    [{ DURABILITY: 'maybe' }, /DURABILITY: /],
    [{ PG_POOL_MAX: '0' }, /PG_POOL_MAX: must be at least 1/],
    [{ PG_CONNECT_TIMEOUT_MS: '2s' }, /PG_CONNECT_TIMEOUT_MS: /],
    [{ PG_STATEMENT_TIMEOUT_MS: '0' }, /PG_STATEMENT_TIMEOUT_MS: must be at least 1/],
    [{ PG_STARTUP_WAIT_MS: '-1' }, /PG_STARTUP_WAIT_MS: must be 0 or more/],
    [{ PLANT_STORE_TOKENS: 'short' }, /PLANT_STORE_TOKENS.0: each token must be at least 16/],
    [{ PLANT_STORE_TOKENS: 'has spaces in the token' }, /each token must use only/],
  ])('names the problem in %o', (env, message) => {
    expect(() => loadConfig({ PLANT_STORE_TOKENS: TOKEN, ...env })).toThrow(message);
  });
});

describe('loadStoreConfig (the command-line tool)', () => {
  it('reads DATABASE_URL with its default and needs no token, even in production', () => {
    expect(loadStoreConfig({}).databaseUrl).toBe('./data/plants.db');
    expect(
      loadStoreConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/plants' }).databaseUrl,
    ).toBe('postgres://db/plants');
  });

  it('reads the PG_* settings exactly as loadConfig does (the token store pools with them)', () => {
    const env = {
      PLANT_STORE_TOKENS: TOKEN,
      PG_POOL_MAX: '3',
      PG_CONNECT_TIMEOUT_MS: '750',
      PG_STATEMENT_TIMEOUT_MS: '1234',
    };
    expect(loadStoreConfig(env).postgres).toEqual({
      poolMax: 3,
      connectTimeoutMs: 750,
      statementTimeoutMs: 1234,
      startupWaitMs: 0,
    });
    expect(loadStoreConfig(env).postgres).toEqual(loadConfig(env).postgres);
    expect(loadStoreConfig({}).postgres).toEqual(
      loadConfig({ PLANT_STORE_TOKENS: TOKEN }).postgres,
    );
    expect(() => loadStoreConfig({ PG_STATEMENT_TIMEOUT_MS: '0' })).toThrow(
      /PG_STATEMENT_TIMEOUT_MS: must be at least 1/,
    );
  });

  it('ignores the server-only settings and never makes a token', () => {
    const config = loadStoreConfig({ PORT: 'eighty', PLANT_STORE_TOKENS: 'short' });
    expect(Object.keys(config).sort()).toEqual(['databaseUrl', 'postgres']);
    expect(JSON.stringify(config)).not.toMatch(/token/i);
  });

  it('names a bad DATABASE_URL', () => {
    expect(() => loadStoreConfig({ DATABASE_URL: '' })).toThrow(ConfigError);
    expect(() => loadStoreConfig({ DATABASE_URL: '' })).toThrow(/DATABASE_URL: must not be empty/);
  });
});

// The operations settings: metrics listener, rate limits, proxies, CORS, keep-alive.

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
      RATE_LIMIT_PER_SECOND: '20',
      RATE_LIMIT_BURST: '5',
      AUTH_FAILURES_PER_MINUTE: '0',
      TRUST_PROXY_HOPS: '2',
      CORS_ORIGINS: ' https://app.example.com ,http://localhost:5173,',
      KEEP_ALIVE_TIMEOUT_SECONDS: '620',
      WEB_CONCURRENCY: '8',
    });
    expect(config).toMatchObject({
      metrics: { port: 9464, host: '0.0.0.0' },
      rateLimit: { perSecond: 20, burst: 5, authFailuresPerMinute: 0 },
      trustProxyHops: 2,
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
      keepAliveTimeoutMs: 620_000,
      webConcurrency: 8,
    });
    expect(load({ METRICS_PORT: '0' }).metrics).toEqual({ port: 0, host: '127.0.0.1' });
  });

  it.each([
    [{ METRICS_PORT: '3000' }, /METRICS_PORT: must differ from PORT/],
    [{ METRICS_PORT: 'nine' }, /METRICS_PORT: /],
    [{ METRICS_PORT: '65536' }, /METRICS_PORT: must be 0..65535/],
    [{ RATE_LIMIT_PER_SECOND: '-1' }, /RATE_LIMIT_PER_SECOND: must be 0 or more/],
    [{ RATE_LIMIT_PER_SECOND: '2.5' }, /RATE_LIMIT_PER_SECOND: must be a whole number/],
    [{ RATE_LIMIT_BURST: '0' }, /RATE_LIMIT_BURST: must be at least 1/],
    [
      { RATE_LIMIT_PER_MINUTE: '6000' },
      /RATE_LIMIT_PER_MINUTE is no longer read: set RATE_LIMIT_PER_SECOND/,
    ],
    [{ AUTH_FAILURES_PER_MINUTE: '2.5' }, /AUTH_FAILURES_PER_MINUTE: must be a whole number/],
    [{ TRUST_PROXY_HOPS: '11' }, /TRUST_PROXY_HOPS: must be 0..10/],
    [{ CORS_ORIGINS: '*' }, /CORS_ORIGINS.0: each origin must be scheme:\/\/host/],
    [{ CORS_ORIGINS: 'https://app.example.com/' }, /CORS_ORIGINS.0: /],
    [{ CORS_ORIGINS: 'https://ok.example.com,app.example.com' }, /CORS_ORIGINS.1: /],
    [{ CORS_ORIGINS: 'ftp://files.example.com' }, /CORS_ORIGINS.0: /],
    [{ KEEP_ALIVE_TIMEOUT_SECONDS: '0' }, /KEEP_ALIVE_TIMEOUT_SECONDS: must be at least 1/],
    [{ WEB_CONCURRENCY: '0' }, /WEB_CONCURRENCY: must be at least 1/],
    [{ WEB_CONCURRENCY: '2.5' }, /WEB_CONCURRENCY: must be a whole number/],
    [{ WEB_CONCURRENCY: '257' }, /WEB_CONCURRENCY: must be 1..256/],
  ])('name the problem in %o', (env, message) => {
    expect(() => load(env)).toThrow(message);
  });
});
