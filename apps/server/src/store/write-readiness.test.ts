import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type NotReadyCause, type Readiness, WriteReadiness } from './write-readiness.ts';

const describeFailure = (error: unknown): NotReadyCause => ({
  code: (error as { code: string }).code,
  message: (error as Error).message,
  action: 'do something',
});
const fault = (code: string) => Object.assign(new Error(`failed with ${code}`), { code });

describe('WriteReadiness', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function setUp() {
    let failure: Error | undefined;
    const probe = vi.fn(() => {
      if (failure) throw failure;
      return true;
    });
    const changes: [Readiness, Readiness][] = [];
    const readiness = new WriteReadiness({
      probe,
      describe: describeFailure,
      intervalMs: 1000,
      onChange: (next, previous) => changes.push([next, previous]),
      timers: {
        setInterval: (callback, ms) => setInterval(callback, ms),
        clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
      },
    });
    return {
      readiness,
      probe,
      changes,
      fail: (error: Error | undefined) => {
        failure = error;
      },
    };
  }

  it('probes at start and every interval, turning not ready within one interval of a fault and back', async () => {
    const { readiness, probe, changes, fail } = setUp();
    readiness.start();
    expect(probe).toHaveBeenCalledTimes(1);
    expect(readiness.current()).toEqual({ ready: true });
    fail(fault('SQLITE_FULL'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(probe).toHaveBeenCalledTimes(2);
    expect(readiness.current()).toEqual({
      ready: false,
      cause: { code: 'SQLITE_FULL', message: 'failed with SQLITE_FULL', action: 'do something' },
    });
    // Still failing: no second transition, so nothing more is logged.
    await vi.advanceTimersByTimeAsync(5000);
    expect(changes).toHaveLength(1);
    fail(undefined);
    await vi.advanceTimersByTimeAsync(1000);
    expect(readiness.current()).toEqual({ ready: true });
    expect(changes.map(([next]) => next.ready)).toEqual([false, true]);
    readiness.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(probe).toHaveBeenCalledTimes(8);
  });

  it('takes the latest write: a failed commit turns it not ready at once, a committed one ready', () => {
    const { readiness, changes } = setUp();
    readiness.noteWrite(fault('SQLITE_READONLY'));
    expect(readiness.current()).toMatchObject({ ready: false, cause: { code: 'SQLITE_READONLY' } });
    readiness.noteWrite(fault('SQLITE_READONLY'));
    readiness.noteWrite(fault('SQLITE_FULL'));
    readiness.noteWrite();
    expect(readiness.current()).toEqual({ ready: true });
    // One change per transition, and a change of cause is one too.
    expect(changes.map(([next]) => (next.ready ? 'ready' : next.cause.code))).toEqual([
      'SQLITE_READONLY',
      'SQLITE_FULL',
      'ready',
    ]);
  });

  it('keeps its state when the probe did not run (returned false)', async () => {
    let run = false;
    const readiness = new WriteReadiness({
      probe: () => run,
      describe: describeFailure,
      intervalMs: 100,
    });
    readiness.noteWrite(fault('SQLITE_FULL'));
    expect(await readiness.probe()).toMatchObject({ ready: false });
    run = true;
    expect(await readiness.probe()).toEqual({ ready: true });
  });

  it('runs one probe at a time', async () => {
    let release = () => {};
    const probe = vi.fn(
      () =>
        new Promise<boolean>((resolve) => {
          release = () => resolve(true);
        }),
    );
    const readiness = new WriteReadiness({ probe, describe: describeFailure, intervalMs: 100 });
    readiness.start();
    await vi.advanceTimersByTimeAsync(500);
    expect(probe).toHaveBeenCalledTimes(1);
    release();
    await vi.advanceTimersByTimeAsync(100);
    expect(probe).toHaveBeenCalledTimes(2);
    readiness.stop();
  });
});
