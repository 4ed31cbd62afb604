import { describe, expect, it } from 'vitest';
import {
  DocsBuildConfigError,
  LOCAL_SERVER_URL,
  readDocsBuildConfig,
  referenceServers,
} from './docs-build-config.ts';

describe('readDocsBuildConfig', () => {
  it('takes the API address from PUBLIC_API_URL, without a trailing slash', () => {
    expect(readDocsBuildConfig([], { PUBLIC_API_URL: 'https://api.example.com/' })).toEqual({
      folder: undefined,
      serverUrl: 'https://api.example.com',
    });
    expect(
      readDocsBuildConfig(['out'], { PUBLIC_API_URL: 'https://example.com/plant-store/v1/' }),
    ).toEqual({ folder: 'out', serverUrl: 'https://example.com/plant-store/v1' });
  });

  it('lets --server-url win over PUBLIC_API_URL', () => {
    const config = readDocsBuildConfig(['--server-url', 'http://10.0.0.5:8080'], {
      PUBLIC_API_URL: 'https://api.example.com',
    });
    expect(config.serverUrl).toBe('http://10.0.0.5:8080');
  });

  it('has no address when neither is set, or PUBLIC_API_URL is empty', () => {
    expect(readDocsBuildConfig([], {}).serverUrl).toBeUndefined();
    expect(readDocsBuildConfig([], { PUBLIC_API_URL: ' ' }).serverUrl).toBeUndefined();
  });

  it.each([
    ['/', 'must be an absolute URL, e.g. https://api.example.com'],
    ['api.example.com', 'must be an absolute URL, e.g. https://api.example.com'],
    ['file:///tmp/x', 'must be an http: or https: URL'],
    ['https://api.example.com/?a=1', 'must have no query or fragment'],
    ['https://user:secret@api.example.com', 'must hold no credentials'],
  ])('refuses PUBLIC_API_URL=%s, naming the setting', (value, message) => {
    expect(() => readDocsBuildConfig([], { PUBLIC_API_URL: value })).toThrow(
      new DocsBuildConfigError(`PUBLIC_API_URL: ${message} (got ${JSON.stringify(value)})`),
    );
  });

  it('names the flag when --server-url is refused, and refuses an unknown flag', () => {
    expect(() => readDocsBuildConfig(['--server-url', ''], {})).toThrow(/^--server-url: /);
    expect(() => readDocsBuildConfig(['--server'], {})).toThrow(DocsBuildConfigError);
  });
});

describe('referenceServers', () => {
  it('is the public address when given, else a local server that says how to set one', () => {
    expect(referenceServers('https://api.example.com')).toEqual([
      { url: 'https://api.example.com', description: 'The Plant Store API' },
    ]);
    const [local] = referenceServers(undefined);
    expect(local?.url).toBe(LOCAL_SERVER_URL);
    expect(local?.description).toContain('PUBLIC_API_URL');
  });
});
