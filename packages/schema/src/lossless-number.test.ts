import { LosslessNumber, isLosslessNumber as losslessJsons } from 'lossless-json';
import { expect, it } from 'vitest';
import { isLosslessNumber } from './lossless-number.ts';

it("tells a LosslessNumber as lossless-json's isLosslessNumber does", () => {
  const values = [new LosslessNumber('1.0'), { isLosslessNumber: true }, 1, '1', null, {}, []];
  expect(values.map(isLosslessNumber)).toEqual(
    values.map((value) => Boolean(losslessJsons(value))),
  );
  expect(isLosslessNumber(new LosslessNumber('1.0'))).toBe(true);
});
