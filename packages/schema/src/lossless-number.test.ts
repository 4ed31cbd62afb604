import { expect, it } from 'vitest';
import { isLosslessNumber, LosslessNumber } from './lossless-number.ts';

it('tells a LosslessNumber from lookalikes and keeps its text', () => {
  const number = new LosslessNumber('1e-400');
  expect(isLosslessNumber(number)).toBe(true);
  expect(`${number}`).toBe('1e-400');
  const lookalikes = [{ value: '1' }, { isLosslessNumber: true }, 1, 1n, '1', null, {}, []];
  expect(lookalikes.map(isLosslessNumber)).toEqual(lookalikes.map(() => false));
});
