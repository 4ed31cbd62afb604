import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { boolean, type Field, integer, storedValue, text } from './field-kinds.ts';
import { parseJson } from './json.ts';

const height = integer({ minimum: 1, maximum: 500, required: true });
const indoor = boolean({ required: false });

/** The messages `field`'s schema gives the JSON `text`, or the value it yields. */
function read(field: Field, json: string) {
  const schema = field.required ? field.schema(z) : z.optional(field.schema(z));
  const result = schema.safeParse(json === '' ? undefined : parseJson(json));
  return result.success ? { value: result.data } : result.error.issues.map((i) => i.message);
}

describe('fieldSchema', () => {
  it.each([
    ['1', { value: 1 }],
    ['500', { value: 500 }],
    ['5e1', { value: 50 }],
    ['0', ['must be an integer from 1 to 500 (got a number)']],
    ['501', ['must be an integer from 1 to 500 (got a number)']],
    ['1.5', ['must be an integer from 1 to 500 (got a number)']],
    ['1.0000000000000000001', ['must be an integer from 1 to 500 (got a number)']],
    ['99999999999999999999', ['must be an integer from 1 to 500 (got a number)']],
    ['"7"', ['must be an integer from 1 to 500 (got a string)']],
    ['null', ['must be an integer from 1 to 500 (got null)']],
    ['', ['is required']],
  ])('an integer field reads %s as %j', (text, expected) => {
    expect(read(height, text)).toEqual(expected);
  });

  it.each([
    ['true', { value: true }],
    ['false', { value: false }],
    ['', { value: undefined }],
    ['1', ['must be a boolean, or left out (got a number)']],
    ['null', ['must be a boolean, or left out (got null)']],
  ])('an optional boolean field reads %s as %j', (text, expected) => {
    expect(read(indoor, text)).toEqual(expected);
  });
});

describe('storedValue', () => {
  it('reads what SQLite and PostgreSQL give back as the field type', () => {
    expect(storedValue(height, 42n)).toBe(42);
    expect(storedValue(height, '42')).toBe(42);
    expect(storedValue(indoor, 1n)).toBe(true);
    expect(storedValue(indoor, 0)).toBe(false);
    expect(storedValue(indoor, false)).toBe(false);
    expect(storedValue(text({ maxLength: 9, required: true }), 'a')).toBe('a');
  });
});
