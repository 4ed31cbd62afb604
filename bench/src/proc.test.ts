import { describe, expect, it } from 'vitest';
import { cpuMicros, cpuMicrosOf } from './proc.ts';

describe('cpuMicrosOf', () => {
  it('adds utime and stime (fields 14 and 15), even with spaces in the command name', () => {
    const stat = '4242 (node main (x)) S 1 4242 4242 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 11 0';
    expect(cpuMicrosOf(stat)).toBeCloseTo((300 / 100) * 1e6, -5);
  });

  it('refuses a text it cannot read', () => {
    expect(() => cpuMicrosOf('garbage')).toThrow(/Unreadable/);
  });

  it('reads this process, and the count grows with work', async () => {
    const before = cpuMicros(process.pid);
    let after = before;
    // Spin (no waiting) until a clock tick of CPU time has been counted.
    while (after === before)
      after = await new Promise<number>((r) => setImmediate(() => r(cpuMicros(process.pid))));
    expect(after).toBeGreaterThan(before);
  });
});
