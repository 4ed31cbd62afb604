import * as z from 'zod/mini';
import { documented } from './documented.ts';

/** The body of every error response: a catalog code and a human-readable message. */
export const ErrorBody = documented(
  z.object({
    error: documented(z.int32(), {
      type: 'integer',
      format: 'int32',
      description: 'Code from the error catalog.',
    }),
    message: documented(z.string(), { description: 'What went wrong, for a person to read.' }),
  }),
  {
    id: 'Error',
    description:
      'An error response. `error` is a stable code from the catalog; `message` explains.',
    example: { error: 40001, message: 'name: must not be empty' },
  },
);
export type ErrorBody = z.output<typeof ErrorBody>;
