import { expect, it } from 'vitest';
import { ERROR_CATALOG, ERROR_ENTRIES, ERROR_STATUSES } from './error-catalog.ts';

it('lists every entry once, with its name, in code order', () => {
  expect(ERROR_ENTRIES.map(({ name, ...entry }) => [name, entry])).toEqual(
    expect.arrayContaining(Object.entries(ERROR_CATALOG)),
  );
  expect(ERROR_ENTRIES).toHaveLength(Object.keys(ERROR_CATALOG).length);
  const codes = ERROR_ENTRIES.map((entry) => entry.code);
  expect(codes).toEqual([...codes].sort((a, b) => a - b));
  expect(new Set(codes).size).toBe(codes.length);
  expect(codes.slice(0, 3)).toEqual([40001, 40002, 40003]);
});

it('gives each code the HTTP status of its first three digits', () => {
  for (const { name, code, status } of ERROR_ENTRIES) {
    expect(Math.floor(code / 100), name).toBe(status);
  }
});

it('lists each status once, ascending', () => {
  expect(ERROR_STATUSES).toEqual([400, 401, 404, 405, 408, 409, 413, 415, 417, 429, 500, 503]);
});
