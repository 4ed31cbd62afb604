import { describe, expect, it } from 'vitest';
import { maskUrl } from './mask-url.ts';

describe('maskUrl', () => {
  it.each([
    ['postgres://app:hunter2@db:5432/plants', 'postgres://app:***@db:5432/plants'],
    [
      'postgresql://app:p%40ss@db/plants?sslmode=require',
      'postgresql://app:***@db/plants?sslmode=require',
    ],
    ['postgres://:secret@db/plants', 'postgres://:***@db/plants'],
    ['postgres://app@db/plants', 'postgres://app@db/plants'],
    [
      'postgres://db/plants?sslmode=require&password=x&a=b',
      'postgres://db/plants?sslmode=require&password=***&a=b',
    ],
    ['./data/plants.db', './data/plants.db'],
  ])('shows %j as %j', (url, shown) => {
    expect(maskUrl(url)).toBe(shown);
  });
});
