import { describe, expect, it } from 'vitest';
import { cpuMicros, rssBytes, treeCpuMicros } from './proc-stats.ts';

describe('process statistics from /proc', () => {
  it('counts CPU time that grows with work', () => {
    const before = cpuMicros(process.pid);
    const start = process.cpuUsage();
    const used = () => {
      const { user, system } = process.cpuUsage(start);
      return user + system;
    };
    // Spin until Node's own accounting shows 100 ms of CPU, however busy the machine is.
    let spin = 0;
    while (used() < 100_000) spin += 1;
    expect(spin).toBeGreaterThan(0);
    // /proc agrees to within its tick granularity (10 ms).
    expect(cpuMicros(process.pid) - before).toBeGreaterThanOrEqual(50_000);
  });

  it('reads the resident set size, close to what Node reports', () => {
    const rss = rssBytes(process.pid);
    expect(rss).toBeGreaterThan(10 * 1024 * 1024);
    expect(Math.abs(rss - process.memoryUsage.rss()) / rss).toBeLessThan(0.2);
  });

  it('fails for a process that does not exist', () => {
    expect(() => cpuMicros(2 ** 30)).toThrow();
  });

  it('adds the descendants of a process to its own time, and 0 for a process that is gone', () => {
    const own = cpuMicros(process.pid);
    expect(treeCpuMicros(process.pid)).toBeGreaterThanOrEqual(own);
    expect(treeCpuMicros(2 ** 30)).toBe(0);
  });
});
