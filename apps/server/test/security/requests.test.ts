import { contract } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { knownUnknownPaths, methodsAt, type Place, UNKNOWN_PATHS } from './requests.ts';

// The fuzz model (requests.ts) takes what the router answers from the contract: the e2e fuzz
// run would otherwise be the first to notice an operation added under /plants.

const CONTRACT: readonly Place[] = Object.values(contract);

describe('the fuzz model of routes (requests.ts)', () => {
  it('calls unknown only paths that no operation of the contract has', () => {
    expect(knownUnknownPaths()).toEqual([]);
  });

  it('names requests.ts and the operation when an unknown path is one of the contract', () => {
    // Its own paths and operations, so that a real GET /plants/{id} leaves this check as it is.
    const unknown = [
      '/plant',
      '/plants/1',
      '//plants',
      '/plants/..%2f',
      '/plants/1/x',
      '/plants/%00',
    ];
    const problems = knownUnknownPaths([{ method: 'get', path: '/plants/{id}' }], unknown);
    expect(problems).toContain(
      'apps/server/test/security/requests.ts: the unknown path /plants/1 is GET /plants/{id} of the contract: replace it in UNKNOWN_PATHS with a path no operation has',
    );
    // A path parameter is one raw segment: encoded bytes and dots are in it, slashes are not.
    expect(problems.map((problem) => problem.split(' ')[4])).toEqual([
      '/plants/1',
      '/plants/..%2f',
      '/plants/%00',
    ]);
    const odd = [{ method: 'post', path: '/plants;x' } as const];
    expect(knownUnknownPaths(odd, ['/plants;x', '/plantsx'])).toHaveLength(1);
  });

  it("gives each path the contract's methods, HEAD with GET, as a 405's Allow lists them", () => {
    expect(methodsAt('/plants')).toEqual(['POST']);
    expect(methodsAt('/plants?id=1&name=x')).toEqual(['POST']);
    expect(methodsAt('/healthz')).toEqual(['GET', 'HEAD']);
    for (const path of UNKNOWN_PATHS) expect(methodsAt(path), path).toEqual([]);
    const places: Place[] = [
      ...CONTRACT,
      { method: 'get', path: '/plants/{id}' },
      { method: 'delete', path: '/plants/{id}' },
      { method: 'get', path: '/plants' },
    ];
    expect(methodsAt('/plants/7', places)).toEqual(['DELETE', 'GET', 'HEAD']);
    expect(methodsAt('/plants', places)).toEqual(['GET', 'HEAD', 'POST']);
    expect(methodsAt('/plants/7/x', places)).toEqual([]);
    expect(methodsAt('/plants/', places)).toEqual([]);
  });
});
