import { expect, it } from 'vitest';
import { int64Param, textParam } from './params.ts';

it('reads an int64 from its decimal text, and refuses any other text with one message', () => {
  expect(int64Param.safeParse('-9223372036854775808')).toEqual({
    success: true,
    data: -(2n ** 63n),
  });
  expect(int64Param.safeParse('9223372036854775807').data).toBe(2n ** 63n - 1n);
  for (const text of ['fern', '9223372036854775808', '1.5', '', ' 1', '1e3', '0x10']) {
    const result = int64Param.safeParse(text);
    expect(result.success, text).toBe(false);
    expect(
      result.error?.issues.map((issue) => issue.message),
      text,
    ).toEqual(['must be a whole number from -9223372036854775808 to 9223372036854775807']);
  }
});

it('hands over what `read` returns, and refuses a value that is no text', () => {
  const upper = textParam((text) => (text === '' ? undefined : text.toUpperCase()), 'empty');
  expect(upper.safeParse('a').data).toBe('A');
  expect(upper.safeParse(1).success).toBe(false);
});
