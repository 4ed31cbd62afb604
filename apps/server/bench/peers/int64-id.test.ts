import { describe, expect, it } from 'vitest';
import { exactInt64, topLevelMember } from './int64-id.ts';

const idOf = (json: string) => exactInt64((JSON.parse(json) as { id?: unknown }).id, json);

describe('exactInt64', () => {
  it('takes a safe integer as JSON.parse gave it', () => {
    expect(idOf('{"id": 42, "name": "x"}')).toBe(42);
    expect(idOf('{"id": -9007199254740991}')).toBe(-9007199254740991);
  });

  it('reads an id beyond 2^53 exactly from its text, wherever the member is', () => {
    expect(idOf('{"id": 9007199254740993}')).toBe(9007199254740993n);
    expect(idOf('{"name": "{\\"id\\": 1}", "nested": {"id": 2}, "id": 9223372036854775807}')).toBe(
      9223372036854775807n,
    );
    expect(idOf('{"\\u0069d": 9007199254740993}')).toBe(9007199254740993n);
    expect(idOf('{"id": 1, "id": 9007199254740995}')).toBe(9007199254740995n);
  });

  it('refuses what is not an int64', () => {
    for (const json of [
      '{"id": 9223372036854775808}',
      '{"id": -9223372036854775809}',
      '{"id": 1e20}',
      '{"id": 1e400}',
      '{"id": 1.5}',
      '{"id": "1"}',
      '{"id": null}',
    ]) {
      expect({ json, id: idOf(json) }).toEqual({ json, id: undefined });
    }
  });
});

describe('topLevelMember', () => {
  it('returns the text of the last top-level member of that name', () => {
    expect(topLevelMember(' { "a" : [1, {"id": 3}] , "id" : -12 } ', 'id')).toBe('-12');
    expect(topLevelMember('{"a": 1}', 'id')).toBeUndefined();
    expect(topLevelMember('[1]', 'id')).toBeUndefined();
  });
});
