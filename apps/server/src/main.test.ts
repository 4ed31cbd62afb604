import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, NO_CREDENTIAL_MESSAGE, StartupError } from './config.ts';
import { failureText, main, startupText } from './main.ts';

// The entry's decisions, in process: what a refused start prints and how it exits, what a start
// prints. The process itself (signals, restarts, the production JSON line):
// test/e2e/main.test.ts and signals.test.ts.

afterEach(() => {
  vi.restoreAllMocks();
});

describe('main', () => {
  it('refuses a bad configuration in one line on stderr, then exits 1', async () => {
    const printed: unknown[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => printed.push(line));
    // The process stays: the exit is where the start ends.
    vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    await expect(main({ PORT: '0x1000' })).rejects.toThrow('exit 1');
    expect(printed).toEqual([
      'plant-store: Invalid configuration: PORT: "0x1000" is not a whole number from 0 to 65535 (decimal digits only)',
    ]);
  });
});

describe('failureText', () => {
  it("is the operator's line alone for a start-up error, at any LOG_LEVEL but debug", () => {
    const error = new ConfigError(NO_CREDENTIAL_MESSAGE);
    expect(failureText(error, 'info')).toBe(`plant-store: ${NO_CREDENTIAL_MESSAGE}`);
    expect(failureText(new StartupError('cannot listen on h:1: no'))).toBe(
      'plant-store: cannot listen on h:1: no',
    );
  });

  it('says how to see the stack of anything else, and shows it with LOG_LEVEL=debug or trace', () => {
    const error = new TypeError('x is not a function');
    expect(failureText(error, 'info')).toBe(
      'plant-store: failed to start: x is not a function (LOG_LEVEL=debug prints the stack)',
    );
    for (const level of ['debug', 'trace']) {
      const text = failureText(error, level);
      expect(text.split('\n')[0]).toBe(failureText(error, 'info'));
      expect(text).toContain(`\n${error.stack}`);
    }
    expect(failureText('a string', 'debug')).toBe(
      'plant-store: failed to start: a string (LOG_LEVEL=debug prints the stack)',
    );
  });
});

describe('startupText', () => {
  const config = { database: { kind: 'sqlite', filename: 'p.db', shown: 'p.db' } as const };

  it('names the URL and the database, and the metrics when they are served', () => {
    expect(startupText(config, 'http://127.0.0.1:3000', undefined, undefined)).toBe(
      'Plant Store is listening on http://127.0.0.1:3000 (p.db)',
    );
    expect(
      startupText(config, 'http://127.0.0.1:3000', 'http://127.0.0.1:9464', undefined).split('\n'),
    ).toEqual([
      'Plant Store is listening on http://127.0.0.1:3000 (p.db)',
      'Metrics: http://127.0.0.1:9464/metrics',
    ]);
  });

  it('shows the development token in a curl command against the URL', () => {
    const token = 'a-development-token-of-43-characters-abcdefg';
    const development = { token, file: 'data/dev-token', created: true };
    const text = startupText(config, 'http://[::1]:3000', undefined, development);
    expect(text).toContain('the development token made now and kept in data/dev-token:');
    expect(text).toContain('curl -sS -X POST http://[::1]:3000/plants');
    expect(text).toContain(`-H 'Authorization: Bearer ${token}'`);
    const again = startupText(config, 'http://[::1]:3000', undefined, {
      ...development,
      created: false,
    });
    expect(again).toContain('the development token kept in data/dev-token:');
  });
});
