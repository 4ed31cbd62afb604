import { en } from 'zod/locales';
import * as z from 'zod/mini';

// zod/mini loads no locale: without one every issue reads just "Invalid input". English is set
// here, in the module every schema of the contract is built through, unless the application
// chose a locale already (full zod sets English the same way on first use), so the client and
// the server phrase every problem alike.
if (z.config().localeError === undefined) z.config(en());

/**
 * Attaches documentation (description, example, OpenAPI `type`/`format`, and `id` for a named
 * component) to a schema in zod's global registry, as full zod's `.meta()` does; the document
 * builder (`@plant-store/schema/openapi`) reads it. Returns the same schema.
 *
 * @example
 * const Name = documented(z.string(), { description: 'The name of the plant' });
 */
export function documented<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
  z.globalRegistry.add(schema, meta);
  return schema;
}
