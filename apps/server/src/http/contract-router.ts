import { Router } from '@koa/router';
import {
  checkPart,
  ERROR_MESSAGES,
  type Operation,
  type OperationInput,
  type OperationResult,
} from '@plant-store/schema';
import type * as z from 'zod/mini';
import { ApiError } from '../api-error.ts';
import type { AppContext, AppMiddleware, AppState } from './app-state.ts';
import { jsonBody } from './json-body.ts';

/** An operation's handler: its validated input in, its success body out (or an ApiError thrown). */
export type Handler<O extends Operation> = (
  input: OperationInput<O>,
) => Promise<OperationResult<O>>;

/** An operation answered by Koa middleware of its own (a built file), not by a handler. */
export interface Served {
  readonly serve: AppMiddleware;
}

/** How the server answers each operation of `C`: a handler, or middleware that answers it. */
export type Implementations<C extends Readonly<Record<string, Operation>>> = {
  readonly [K in keyof C]: Handler<C[K]> | Served;
};

interface ContractRouterOptions {
  /** Run before the body is read on every `auth: 'bearer'` operation: the credential check, the rate limits. */
  readonly authenticate: readonly AppMiddleware[];
  readonly bodyLimitBytes: number;
}

/** A part of the request as its schema makes it, or a 400 naming the problem. */
function checked(schema: z.ZodMiniType, value: unknown, label?: string): unknown {
  const verdict = checkPart(schema, value, label);
  if (!verdict.ok) throw new ApiError('validationFailed', verdict.message);
  return verdict.value;
}

/**
 * The @koa/router routes of a contract, one per operation, each a list of plain middleware:
 * `authenticate` when it needs a credential, then its answer: path parameters, query
 * parameters and body validated against the operation's schemas and handed to its handler as
 * one object, whose result is sent as JSON with the operation's success status. Anything
 * thrown is answered in the Error shape by `requestContext`, which logs the route's path
 * (`ctx.routerPath`).
 *
 * @example
 * const router = contractRouter(contract, { createPlant: async ({ body }) => …, … }, options);
 * app.use(router.routes()).use(answerUnrouted(router));
 */
export function contractRouter<C extends Readonly<Record<string, Operation>>>(
  contract: C,
  implementations: Implementations<C>,
  options: ContractRouterOptions,
): Router<AppState> {
  // Paths exactly as the contract writes them: `/plants/` and `/PLANTS` are 404s.
  const router = new Router<AppState>({ strict: true, sensitive: true });
  const readBody = jsonBody(options.bodyLimitBytes);
  for (const [key, operation] of Object.entries<Operation>(contract)) {
    const implementation = implementations[key] as Handler<Operation> | Served;
    const before = operation.auth === 'bearer' ? options.authenticate : [];
    const answer =
      typeof implementation === 'function'
        ? answerWith(operation, implementation, readBody)
        : implementation.serve;
    // `/plants/{id}` (OpenAPI) → `/plants/:id` (@koa/router).
    const path = operation.path.replace(/\{([^}]+)\}/g, ':$1');
    router.register(path, [operation.method], [...before, answer], { name: key });
  }
  return router;
}

/** The last middleware of an operation's route: its input validated, its handler's result sent. */
function answerWith(
  operation: Operation,
  handler: Handler<Operation>,
  readBody: ReturnType<typeof jsonBody>,
): AppMiddleware {
  const { params, query, body } = operation;
  const { status } = operation.response;
  return async function answerOperation(ctx: AppContext) {
    // Each part only when the operation has it: `ctx.query` parses the query string.
    const input = {
      params: params && checked(params, ctx.params, 'path parameter'),
      query: query && checked(query, ctx.query, 'query parameter'),
      body: body && checked(body, await readBody(ctx)),
    } as OperationInput<Operation>;
    const result = await handler(input);
    ctx.status = status;
    // Koa sends an object as JSON (no result holds a bigint: a Plant, a status, the index).
    ctx.body = result;
  };
}

/**
 * After `router.routes()`, for a request no route took: a 405 with `Allow` when the path has
 * other methods (OPTIONS included: no route has it), else a 404, in the Error shape.
 *
 * @example
 * app.use(router.routes()).use(answerUnrouted(router));
 */
export function answerUnrouted(router: Router<AppState>): AppMiddleware {
  return async function answerUnroutedRequest({ method, path }) {
    const allowed = router.match(path, method).path.flatMap((layer) => layer.methods);
    if (allowed.length === 0) throw new ApiError('notFound', ERROR_MESSAGES.notFound(method, path));
    const message = ERROR_MESSAGES.methodNotAllowed(method, path, allowed);
    throw new ApiError('methodNotAllowed', message, { Allow: allowed.join(', ') });
  };
}
