import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, numericRanges, readVariable } from '../test/support/config-variables.ts';
import {
  ConfigError,
  DEFAULTS,
  loadConfig,
  loadStoreConfig,
  MAX_TIMER_MS,
  maskUrl,
  parseDatabase,
  WEB_CONCURRENCY_WARNING,
} from './config.ts';

const TOKEN = 'a-long-enough-token-0123';

describe('loadConfig', () => {
  it('applies the defaults (DEFAULTS; docs-tables.test.ts checks them against the docs)', () => {
    expect(DEFAULTS).toEqual(loadConfig({}));
    expect(DEFAULTS).toMatchObject({ production: false, tokens: [], developmentToken: true });
    const config = loadConfig({ PLANT_STORE_TOKENS: TOKEN });
    expect(config).toEqual({ ...DEFAULTS, tokens: [TOKEN], developmentToken: false });
  });

  it('reads one variable as loadConfig does, its default when unset (readVariable)', () => {
    expect(readVariable('BODY_LIMIT', undefined)).toBe(DEFAULTS.bodyLimitBytes);
    expect(readVariable('BODY_LIMIT', '2kb')).toBe(2048);
    expect(readVariable('METRICS_PORT', undefined)).toBeUndefined();
    expect(readVariable('CORS_ORIGINS', undefined)).toEqual([]);
    expect(() => readVariable('BODY_LIMIT', '1gb')).toThrow();
    expect(() => readVariable('NO_SUCH', '1')).toThrow(/NO_SUCH is not a configuration variable/);
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
      database: { kind: 'sqlite', filename: '/var/lib/plants.db' },
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
    [
      { PORT: '70000' },
      /^Invalid configuration: PORT: "70000" is not a whole number from 0 to 65535/,
    ],
    [
      { PORT: 'abc' },
      /^Invalid configuration: PORT: "abc" is not a whole number from 0 to 65535 \(decimal digits only\)$/,
    ],
    [
      { PG_CONNECT_TIMEOUT_MS: 'soon' },
      /PG_CONNECT_TIMEOUT_MS: "soon" is not a whole number of milliseconds from 1 to 86400000/,
    ],
    [{ BODY_LIMIT: 'lots' }, /BODY_LIMIT: "lots" is not a size from 1 byte to 16MB/],
    [{ PG_POOL_MAX: '0' }, /PG_POOL_MAX: "0" is not a whole number from 1 to 1000/],
    [{ PLANT_STORE_TOKENS: 'short' }, /PLANT_STORE_TOKENS.0: each token must be at least 16/],
    [{ PLANT_STORE_TOKENS: 'has spaces in the token' }, /each token must use only/],
  ])('names the problem in %o', (env, message) => {
    expect(() => loadConfig({ PLANT_STORE_TOKENS: TOKEN, ...env })).toThrow(message);
  });

  it('names every problem at once, in one line', () => {
    expect(() => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'verbose', DURABILITY: 'maybe' })).toThrow(
      'Invalid configuration: PORT: "eighty" is not a whole number from 0 to 65535 (decimal digits only); ' +
        'LOG_LEVEL: "verbose" is not one of fatal, error, warn, info, debug, trace, silent; ' +
        'DURABILITY: "maybe" is not one of full, normal',
    );
  });
});

describe('NODE_ENV', () => {
  it('is development when unset: the development token is asked for', () => {
    expect(loadConfig({})).toMatchObject({ production: false, developmentToken: true });
  });

  it.each(['development', 'test'])('%s runs outside production', (value) => {
    expect(loadConfig({ NODE_ENV: value })).toMatchObject({
      production: false,
      developmentToken: true,
    });
  });

  it('production is production: no development token', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({
      production: true,
      developmentToken: false,
    });
  });

  it.each(['Production', 'prod', 'PRODUCTION', 'dev', 'staging', '', ' production'])(
    'refuses %j in one line naming the accepted values',
    (value) => {
      expect(() => loadConfig({ NODE_ENV: value, PLANT_STORE_TOKENS: TOKEN })).toThrow(
        new ConfigError(
          `Invalid configuration: NODE_ENV: ${JSON.stringify(value)} is not one of development, test, production (unset means development)`,
        ),
      );
    },
  );
});

describe('numeric variables', () => {
  const ranges = numericRanges();
  const names = Object.keys(ranges);
  const rangeOf = (name: string) => ranges[name] ?? { min: 0, max: 0 };
  const badValues = (name: string) => {
    const { min, max } = rangeOf(name);
    return [
      '0x1000',
      '1e3',
      '+5',
      '-1',
      '1.5',
      ' 5',
      '5 ',
      '',
      '5s',
      '1_000',
      '٣', // an Arabic-Indic digit: \d in some engines, not a decimal digit here
      String(max + 1),
      '9'.repeat(30),
      ...(min > 0 ? [String(min - 1)] : []),
    ];
  };
  const cases = names.flatMap((name) => badValues(name).map((value) => [name, value] as const));

  it('are every variable whose value is a number, each bounded, timers within 2^31−1 ms', () => {
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const name of names) {
      const { min, max } = rangeOf(name);
      expect(Number.isSafeInteger(max) && max >= min, name).toBe(true);
      const ms = name.endsWith('_MS') ? max : name.endsWith('_SECONDS') ? max * 1000 : 0;
      expect(ms, name).toBeLessThanOrEqual(MAX_TIMER_MS);
      expect(2 * ms, name).toBeLessThanOrEqual(2 ** 31 - 1); // also a sum of two timers
    }
  });

  it.each(cases)(
    '%s=%j is refused in one line naming it, the value and the range',
    (name, value) => {
      const range: { min: number; max: number; unit?: string } = rangeOf(name);
      const what = range.unit ? `a whole number of ${range.unit}` : 'a whole number';
      const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
      expect(() => load({ [name]: value })).toThrow(
        new ConfigError(
          `Invalid configuration: ${name}: ${shown} is not ${what} from ${range.min} to ${range.max} (decimal digits only)`,
        ),
      );
    },
  );

  it.each(names)('%s takes its bounds, written in plain digits (leading zeros too)', (name) => {
    const { min, max } = rangeOf(name);
    for (const value of [min, max]) {
      const config = load({ [name]: String(value) });
      expect(JSON.stringify(config)).toMatch(
        String(name.endsWith('_SECONDS') ? value * 1000 : value),
      );
    }
    expect(() => load({ [name]: `0${max}` })).not.toThrow();
  });

  it("turns seconds into milliseconds within a timer's range", () => {
    const { max } = rangeOf('KEEP_ALIVE_TIMEOUT_SECONDS');
    expect(load({ KEEP_ALIVE_TIMEOUT_SECONDS: String(max) }).keepAliveTimeoutMs).toBe(MAX_TIMER_MS);
    expect(() => load({ KEEP_ALIVE_TIMEOUT_SECONDS: '3000000' })).toThrow(
      /KEEP_ALIVE_TIMEOUT_SECONDS: "3000000" is not a whole number of seconds from 1 to 86400/,
    );
    expect(() => load({ SHUTDOWN_DELAY_MS: '99999999999' })).toThrow(/SHUTDOWN_DELAY_MS: /);
  });
});

describe('BODY_LIMIT', () => {
  it.each([
    ['65536', 65536],
    ['64kb', 65536],
    ['64KB', 65536],
    ['1mb', 1024 * 1024],
    ['16mb', 16 * 1024 * 1024],
    ['1', 1],
    ['100b', 100],
  ])('takes %j as %d bytes', (value, expected) => {
    expect(load({ BODY_LIMIT: value }).bodyLimitBytes).toBe(expected);
  });

  it.each([
    '0x1000',
    '1e3',
    '+5',
    '-1',
    '1.5kb',
    ' 5',
    '5 ',
    '',
    '64 kb',
    '0',
    '17mb',
    '1gb',
    '5abc',
  ])('refuses %j naming the value and the range', (value) => {
    expect(() => load({ BODY_LIMIT: value })).toThrow(
      `Invalid configuration: BODY_LIMIT: ${JSON.stringify(value)} is not a size from 1 byte to 16MB: digits, optionally followed by kb or mb (65536, 64kb, 1mb)`,
    );
  });
});

describe('every variable', () => {
  // A bad value of each variable that is not numeric (the numeric ones are all tested above,
  // from numericRanges()): with the one ignored (WEB_CONCURRENCY), every variable it reads.
  const OTHER_BAD_VALUES: Record<string, string> = {
    NODE_ENV: 'prod',
    HOST: '',
    DATABASE_URL: '',
    PLANT_STORE_TOKENS: 'short',
    BODY_LIMIT: '1e3',
    LOG_LEVEL: 'verbose',
    DURABILITY: 'maybe',
    METRICS_HOST: '',
    TRUST_PROXY: 'garbage',
    CORS_ORIGINS: '*',
  };
  const badValues = [
    ...Object.entries(OTHER_BAD_VALUES),
    ...Object.keys(numericRanges()).map((name) => [name, '0x10'] as const),
  ];

  it('has a bad value tested here', () => {
    const names = [...badValues.map(([name]) => name), 'WEB_CONCURRENCY'];
    expect(names.sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it.each(badValues)(
    "%s=%j is refused in the project's words, naming the variable",
    (name, value) => {
      let message = '';
      try {
        load({ [name]: value });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message).toMatch(new RegExp(`^Invalid configuration: ${name}(\\.0)?: `));
      expect(message).not.toContain('\n');
      // zod's own words ("Invalid option: expected one of …", "Too small", "received NaN").
      expect(message).not.toMatch(
        /Invalid (input|option|string)|expected|received|Too (small|big)/i,
      );
    },
  );
});

describe('loadStoreConfig (the command-line tool)', () => {
  it('reads DATABASE_URL with its default and needs no token, even in production', () => {
    expect(loadStoreConfig({}).database).toMatchObject({ filename: './data/plants.db' });
    expect(
      loadStoreConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/plants' }).database,
    ).toEqual({ kind: 'postgres', url: 'postgres://db/plants', shown: 'postgres://db/plants' });
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
      /PG_STATEMENT_TIMEOUT_MS: "0" is not a whole number of milliseconds from 1 to 86400000/,
    );
  });

  it('ignores the server-only settings and never makes a token', () => {
    const config = loadStoreConfig({ PORT: 'eighty', PLANT_STORE_TOKENS: 'short' });
    expect(Object.keys(config).sort()).toEqual(['database', 'postgres']);
    expect(JSON.stringify(config)).not.toMatch(/token/i);
  });

  it('names a bad DATABASE_URL', () => {
    expect(() => loadStoreConfig({ DATABASE_URL: '' })).toThrow(ConfigError);
    expect(() => loadStoreConfig({ DATABASE_URL: '' })).toThrow(/DATABASE_URL: .*it is empty/);
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
      TRUST_PROXY: ' 127.0.0.1 ,10.0.0.0/8, fd00::/8,loopback,',
      CORS_ORIGINS: ' https://app.example.com ,http://localhost:5173,',
      KEEP_ALIVE_TIMEOUT_SECONDS: '620',
    });
    expect(config).toMatchObject({
      metrics: { port: 9464, host: '0.0.0.0' },
      rateLimit: { perSecond: 20, burst: 5, authFailuresPerMinute: 0 },
      trustProxy: ['127.0.0.1', '10.0.0.0/8', 'fd00::/8', 'loopback'],
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
      keepAliveTimeoutMs: 620_000,
    });
    expect(load({ METRICS_PORT: '0' }).metrics).toEqual({ port: 0, host: '127.0.0.1' });
  });

  it.each([
    [{ METRICS_PORT: '65536' }, /METRICS_PORT: "65536" is not a whole number from 0 to 65535/],
    [{ RATE_LIMIT_BURST: '0' }, /RATE_LIMIT_BURST: "0" is not a whole number from 1 to/],
    [
      { TRUST_PROXY: '10.0.0.0/33' },
      /^Invalid configuration: TRUST_PROXY.0: each entry must be an IP address/,
    ],
    [{ TRUST_PROXY: '127.0.0.1,true' }, /TRUST_PROXY.1: /],
    [{ TRUST_PROXY: '1' }, /TRUST_PROXY.0: /],
    [{ TRUST_PROXY: 'proxy.internal' }, /TRUST_PROXY.0: /],
    [{ TRUST_PROXY: '0.0.0.0/0' }, /TRUST_PROXY.0: /],
    [{ TRUST_PROXY: '10.0.0.0/8/8' }, /TRUST_PROXY.0: /],
    [{ TRUST_PROXY: '127.1' }, /TRUST_PROXY.0: /],
    [{ CORS_ORIGINS: '*' }, /CORS_ORIGINS.0: each origin must be scheme:\/\/host/],
    [{ CORS_ORIGINS: 'https://app.example.com/' }, /CORS_ORIGINS.0: /],
    [{ CORS_ORIGINS: 'https://ok.example.com,app.example.com' }, /CORS_ORIGINS.1: /],
    [{ CORS_ORIGINS: 'ftp://files.example.com' }, /CORS_ORIGINS.0: /],
  ])('name the problem in %o', (env, message) => {
    expect(() => load(env)).toThrow(message);
  });
});

describe('WEB_CONCURRENCY (set by some platforms)', () => {
  it('is ignored when unset or 1', () => {
    expect(DEFAULTS.warnings).toEqual([]);
    expect(load({ WEB_CONCURRENCY: '1' })).toEqual(load({}));
  });

  it.each(['2', '8', '0', 'auto', ''])(
    '%j starts as 1 would, with one warning naming the proxy instead',
    (value) => {
      const config = load({ WEB_CONCURRENCY: value });
      expect(config).toEqual({ ...load({}), warnings: [WEB_CONCURRENCY_WARNING] });
      expect(WEB_CONCURRENCY_WARNING).toContain('run one instance per core behind the proxy');
    },
  );
});

describe('parseDatabase (DATABASE_URL)', () => {
  it.each([
    ['data/plants.db', 'data/plants.db'],
    ['./data/plants.db', './data/plants.db'],
    ['/var/lib/plants.db', '/var/lib/plants.db'],
    ['plants.db', 'plants.db'],
    ['C:\\data\\plants.db', 'C:\\data\\plants.db'],
    ['file:./data/plants.db', './data/plants.db'],
    ['file:data/plants.db', 'data/plants.db'],
    ['file:/var/lib/plants.db', '/var/lib/plants.db'],
    ['file:///var/lib/plants.db', '/var/lib/plants.db'],
    ['FILE:///var/lib/plants.db', '/var/lib/plants.db'],
    ['file:///var/lib/my%20plants.db', '/var/lib/my plants.db'],
    ['file://localhost/var/lib/plants.db', '/var/lib/plants.db'],
  ])('reads %j as the SQLite file %j', (url, filename) => {
    expect(parseDatabase(url)).toEqual({ kind: 'sqlite', filename, shown: filename });
  });

  it.each([
    'postgres://user:secret@db:5432/plants',
    'postgresql://db/plants?sslmode=require',
    'POSTGRES://db/plants',
  ])('recognises %j as PostgreSQL, keeping the URL as given', (url) => {
    expect(parseDatabase(url)).toMatchObject({ kind: 'postgres', url });
  });

  it.each([
    ['', /it is empty/],
    ['   ', /it is empty/],
    ['mysql://db/plants', /scheme "mysql:" is not supported/],
    ['sqlite:plants.db', /scheme "sqlite:" is not supported/],
    ['file:', /names no file/],
    ['file:plants.db?mode=ro', /query strings/],
    ['file://remote-host/plants.db', /Invalid database URL/],
    ['file:bad%zzname.db', /Invalid database URL/],
  ])('rejects %j', (url, reason) => {
    expect(() => parseDatabase(url)).toThrow(reason);
  });

  it('masks credentials of an unsupported URL in its error', () => {
    expect(() => parseDatabase('mysql://admin:hunter2@db/plants')).toThrow(
      'Invalid database URL "mysql://***@db/plants"',
    );
    expect(() => parseDatabase('mysql://admin:hunter2@db/plants')).not.toThrow(/hunter2/);
  });

  it('names the accepted forms in its error', () => {
    expect(() => parseDatabase('redis://cache')).toThrow(
      /file path .* file: URL .* postgres:\/\/ \/ postgresql:\/\/ URL/,
    );
  });
});

describe('maskUrl', () => {
  it.each([
    ['postgres://app:hunter2@db:5432/plants', 'postgres://app:***@db:5432/plants'],
    [
      'postgresql://app:p%40ss@db/plants?sslmode=require',
      'postgresql://app:***@db/plants?sslmode=require',
    ],
    ['postgres://app@db/plants', 'postgres://app@db/plants'],
    [
      'postgres://db/plants?sslmode=require&password=x&a=b',
      'postgres://db/plants?sslmode=require&password=***&a=b',
    ],
  ])('shows %j as %j', (url, shown) => {
    expect(maskUrl(url)).toBe(shown);
    expect(parseDatabase(url).shown).toBe(shown);
  });
});
