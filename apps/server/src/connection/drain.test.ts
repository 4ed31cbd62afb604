import { createServer } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Lifecycle } from '../handlers.ts';
import { drainOnShutdown } from './drain.ts';

// The drain's steps on a server that never listens, with its timers faked; test/e2e/drain.test.ts
// drains a listening server with sockets open.

afterEach(() => {
  vi.useRealTimers();
});

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

describe('drainOnShutdown', () => {
  it('marks the lifecycle draining at once and closing only after SHUTDOWN_DELAY_MS', async () => {
    vi.useFakeTimers();
    const server = createServer();
    const lifecycle: Lifecycle = { draining: false, closing: false };
    const closeSpy = vi.spyOn(server, 'close');
    const drained = drainOnShutdown(server, lifecycle, 5_000);
    expect(lifecycle).toEqual({ draining: true, closing: false });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(lifecycle.closing).toBe(false);
    expect(closeSpy).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(lifecycle).toEqual({ draining: true, closing: true });
    expect(closeSpy).toHaveBeenCalledOnce();
    await drained;
  });

  it('closes at once without a delay, and leaves no grace timer behind once closed', async () => {
    vi.useFakeTimers();
    const server = createServer();
    const lifecycle: Lifecycle = { draining: false, closing: false };
    const drained = drainOnShutdown(server, lifecycle);
    expect(lifecycle).toEqual({ draining: true, closing: true });
    expect(await settled(drained)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('closes every connection still open SHUTDOWN_GRACE_MS (8 s) after the listener closed', async () => {
    vi.useFakeTimers();
    const server = createServer();
    // A connection still under way: `close` calls back only once it is gone.
    let closed: (() => void) | undefined;
    vi.spyOn(server, 'close').mockImplementation((callback) => {
      closed = () => callback?.();
      return server;
    });
    const closeAll = vi.spyOn(server, 'closeAllConnections').mockImplementation(() => closed?.());
    const drained = drainOnShutdown(server, { draining: false, closing: false });
    await vi.advanceTimersByTimeAsync(7_999);
    expect(closeAll).not.toHaveBeenCalled();
    expect(await settled(drained)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(closeAll).toHaveBeenCalledOnce();
    await drained;
  });
});
