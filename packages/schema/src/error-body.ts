import * as z from 'zod';

/** The body of every error response: a catalog code and a human-readable message. */
export const ErrorBody = z
  .object({
    error: z
      .int32()
      .meta({ type: 'integer', format: 'int32', description: 'Code from the error catalog.' }),
    message: z.string().meta({ description: 'What went wrong, for a person to read.' }),
  })
  .meta({
    id: 'Error',
    description:
      'An error response. `error` is a stable code from the catalog; `message` explains.',
    example: { error: 40001, message: 'name: must not be empty' },
  });
export type ErrorBody = z.output<typeof ErrorBody>;
