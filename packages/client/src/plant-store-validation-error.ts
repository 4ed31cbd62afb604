import type { z } from 'zod';

/**
 * The input was refused by the route's body schema before any request was sent.
 * `message` is `formatIssues(issues)`, the same text the server would answer with (40001).
 *
 * @example
 * try {
 *   await client.createPlant({ id: 1.5, name: '' });
 * } catch (error) {
 *   if (error instanceof PlantStoreValidationError) console.log(error.issues.length); // 2
 * }
 */
export class PlantStoreValidationError extends Error {
  override readonly name = 'PlantStoreValidationError';
  /** Every problem zod found, with its path. */
  readonly issues: readonly z.core.$ZodIssue[];

  constructor(message: string, issues: readonly z.core.$ZodIssue[]) {
    super(message);
    this.issues = issues;
  }
}
