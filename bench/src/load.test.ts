import { describe, expect, it } from 'vitest';
import { benchId, bodyOf } from './load.ts';

describe('bodyOf', () => {
  it("writes the probe's body: spaces after the colons, N counting up from the base", () => {
    const base = 1_764_620_000_000_000;
    expect(bodyOf({ probe: base }, 0)).toBe(
      '{"id": 1764620000000000, "name": "Fern 1764620000000000", "tag": "herb"}',
    );
    const ids = [0, 1, 2].map((n) => JSON.parse(bodyOf({ probe: base }, n)).id);
    expect(ids).toEqual([base, base + 1, base + 2]);
    expect(ids.every(Number.isSafeInteger)).toBe(true);
  });

  it("writes the bench's body: scattered odd ids, a tag on two of three", () => {
    expect(bodyOf('bench', 0)).toBe('{"id":1,"name":"Bench plant 0"}');
    expect(bodyOf('bench', 1)).toBe(`{"id":${benchId(1)},"name":"Bench plant 1","tag":"bench-1"}`);
    expect(benchId(1) % 2n).toBe(1n);
  });
});
