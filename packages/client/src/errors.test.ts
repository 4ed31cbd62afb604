import { describe, expect, it } from 'vitest';
import { describeBody } from './errors.ts';

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
