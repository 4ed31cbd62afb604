import { ERROR_ENTRIES } from '@plant-store/schema';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { describeBody, type ErrorCode, errorFromResponse, type PlantStoreError } from './errors.ts';

describe('describeBody', () => {
  it('gives the content type and the start of the text on one line', () => {
    expect(describeBody({ contentType: 'text/html', text: '<p>\n  Bad\tgateway </p>' })).toBe(
      'text/html: "<p> Bad gateway </p>"',
    );
  });

  it('cuts a long body, and names an empty body or a missing content type', () => {
    expect(describeBody({ contentType: 'text/plain', text: 'x'.repeat(500) })).toBe(
      `text/plain: "${'x'.repeat(120)}…"`,
    );
    expect(describeBody({ contentType: undefined, text: ' \n' })).toBe('no content-type, empty');
  });
});

describe("PlantStoreError's code", () => {
  const answer = (status: number, text: string) =>
    errorFromResponse(
      'createPlant',
      {
        kind: 'response',
        status,
        statusText: '',
        contentType: 'application/json',
        retryAfter: undefined,
        headers: new Headers(),
        text,
      },
      1,
    );

  it("is typed as the catalog's codes: every code of the catalog, and no other number", () => {
    expectTypeOf<PlantStoreError['code']>().toEqualTypeOf<ErrorCode | undefined>();
    const codes: ErrorCode[] = ERROR_ENTRIES.map((entry) => entry.code);
    expect(codes).toContain(40901);
    // @ts-expect-error 40000 is no code of the catalog
    const none: ErrorCode = 40000;
    void none;
  });

  it("is the Error body's `error`, or undefined when the body is no Error", () => {
    const conflict = answer(409, '{"error":40901,"message":"A plant with id 10 already exists"}');
    expect(conflict).toMatchObject({ status: 409, code: 40901 });
    expect(conflict.message).toBe('A plant with id 10 already exists');
    expect(answer(502, '<html>Bad gateway</html>')).toMatchObject({ status: 502, code: undefined });
  });
});
