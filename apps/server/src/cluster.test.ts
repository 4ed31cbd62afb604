import cluster from 'node:cluster';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../test/support/silent-logger.ts';
import { restartDelayMs, runPrimary } from './cluster.ts';
import { StartupError } from './config.ts';

// What the primary decides, in process: when a dead worker is replaced, and that an address it
// cannot listen on fails the start before any worker is forked. The workers themselves, as
// processes: test/e2e/cluster.test.ts.

describe('restartDelayMs', () => {
  it('replaces a worker after 250 ms, doubling with each death in a row up to 30 s', () => {
    const delays = [0, 1, 2, 3, 6, 7, 20].map(restartDelayMs);
    expect(delays).toEqual([250, 500, 1_000, 2_000, 16_000, 30_000, 30_000]);
  });
});

describe('runPrimary', () => {
  it('fails the start in one line when it cannot listen, forking no worker', async () => {
    // A port Node refuses before binding anything: no socket is opened.
    const config = { webConcurrency: 2, port: 70_000, host: '127.0.0.1' };
    let announced = false;
    const started = runPrimary(config, silentLogger(), () => {
      announced = true;
    });
    await expect(started).rejects.toBeInstanceOf(StartupError);
    await expect(started).rejects.toThrow(/^cannot listen on 127\.0\.0\.1:70000: .*70000/);
    expect(Object.keys(cluster.workers ?? {})).toEqual([]);
    expect(announced).toBe(false);
  });
});
