import type * as zm from 'zod/mini';

/**
 * The zod functions the contract's schemas are written with (`z.object`, `z.string().check(…)`,
 * `z.minLength`, `z.unknown`, …): `zod/mini` and full `zod` export each of them with the same
 * signature and the same validation. The contract instantiates its schemas with `zod/mini`
 * (small in a browser bundle); the OpenAPI builder instantiates the same definitions with full
 * zod, whose schemas `@asteasolutions/zod-to-openapi` reads.
 */
export type ZodFunctions = typeof zm;
