/**
 * Unique, scattered plant ids for the benchmark. `n ↦ n · ODD mod 2^50` is a bijection on
 * [0, 2^50), so distinct counters give distinct values spread over the whole key space (a
 * B-tree insert lands anywhere, not at its right edge). Seeded plants get the even ids and
 * benchmark requests the odd ones, so the two never collide, and every id stays below 2^53:
 * a safe integer, like most ids clients send.
 */

const SPACE = 2n ** 50n;
const MASK = SPACE - 1n;
// An odd multiplier (any odd number is invertible mod 2^50); the golden-ratio constant scatters well.
const ODD = 0x9e3779b97f4a7n | 1n;

/** The n-th scattered value in [0, 2^50). */
export function scatter(n: number): bigint {
  if (!Number.isSafeInteger(n) || n < 0 || BigInt(n) >= SPACE) {
    throw new RangeError(`id counter must be an integer in [0, 2^50), not ${n}`);
  }
  return (BigInt(n) * ODD) & MASK;
}

/**
 * The id of the n-th seeded plant (even).
 *
 * @example
 * seedId(0); // 0n
 */
export function seedId(n: number): bigint {
  return scatter(n) * 2n;
}

/**
 * The id of the n-th benchmark request (odd, so never a seeded id).
 *
 * @example
 * benchId(0); // 1n
 */
export function benchId(n: number): bigint {
  return scatter(n) * 2n + 1n;
}
