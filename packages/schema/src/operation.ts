import type * as z from 'zod/mini';
import type { ErrorName } from './error-catalog.ts';
import { formatIssues } from './format-issues.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** An object schema of named texts: path parameters (strings) or query parameters (strings, or arrays of them when repeated). */
type Parameters = z.ZodMiniType<Record<string, unknown>>;

/**
 * What a client needs to call an operation: method, path template, credential, the schemas of
 * its path parameters, query parameters and JSON body, and its success response. An
 * {@link Operation} is one of these plus what only the server and the document use; a browser
 * bundle holds only the call (`createPlantCall` in `@plant-store/schema/shapes`).
 *
 * Path and query parameters arrive as text: their schemas take strings (a repeated query
 * parameter: an array of them) and may turn them into other values, which the handler receives
 * (`textParam` and `int64Param`, params.ts: one check that matches and converts). A client
 * passes those values and sends each as its text, unchecked: the server checks them (a 400
 * naming the parameter; a client checks only the body, before sending).
 */
export interface OperationCall {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** OpenAPI path template, e.g. `/plants` or `/plants/{id}`: one path parameter per `{name}`. */
  readonly path: string;
  /** `bearer`: the request must carry `Authorization: Bearer <token>`. */
  readonly auth: 'bearer' | 'none';
  /** The path parameters, one per `{name}` of `path`. */
  readonly params?: Parameters;
  /** The query parameters; unknown ones are dropped (or refused by a `z.strictObject`). */
  readonly query?: Parameters;
  /** The required JSON request body. */
  readonly body?: z.ZodMiniType;
  /** The success status and body. */
  readonly response: { readonly status: 200 | 201; readonly schema: z.ZodMiniType };
}

/** A named example of a request or response body, as OpenAPI's Example Object. */
export interface Example {
  readonly summary: string;
  readonly description?: string;
  readonly value: unknown;
}

/** What only the server and the OpenAPI document use of an operation. */
export interface OperationDetails {
  /** The OpenAPI tag it is listed under. */
  readonly tag: 'plants' | 'operations';
  /** The catalog errors it can answer with, besides the router's own ({@link ROUTING_ERRORS}). */
  readonly errors: readonly ErrorName[];
  readonly summary: string;
  readonly description: string;
  /** The description of its success response. */
  readonly success: string;
  /** Named examples of its request body and success body (a test runs the schemas on each). */
  readonly examples?: {
    readonly request?: Readonly<Record<string, Example>>;
    readonly response?: Readonly<Record<string, Example>>;
  };
}

/**
 * One operation of the API, declared once in one file (`operations/<name>.ts`): the server's
 * route, the client's call and the OpenAPI operation all derive from it.
 */
export type Operation<C extends OperationCall = OperationCall> = C & OperationDetails;

/**
 * What the router answers on every path of the contract, whatever the operation: 404 for a
 * path no route has (a wrong server URL or path prefix) and 405, with `Allow`, for a method the
 * path does not support. The document lists both on every operation.
 */
export const ROUTING_ERRORS = [
  'notFound',
  'methodNotAllowed',
] as const satisfies readonly ErrorName[];

/** Declares an operation's call with its exact types kept (helper for inference only). */
export function defineCall<const C extends OperationCall>(call: C): C {
  return call;
}

/**
 * Declares an operation as its call plus what only the server and the document use. Written
 * `/* @__PURE__ *\/ defineOperation(call, { … })`: a bundler then drops the details (prose,
 * examples, catalog errors) when only the call is used.
 *
 * @example
 * export const createPlant = defineOperation(createPlantCall, { tag: 'plants', errors: ['conflict'], … });
 */
export function defineOperation<const C extends OperationCall>(
  call: C,
  details: OperationDetails,
): Operation<C> {
  return { ...call, ...details };
}

type Output<S> = S extends z.ZodMiniType ? z.output<S> : undefined;

/** What a handler receives: the validated path parameters, query parameters and body. */
export interface OperationInput<C extends OperationCall> {
  readonly params: Output<C['params']>;
  readonly query: Output<C['query']>;
  readonly body: Output<C['body']>;
}

/** What a client passes to call an operation: each part it has (the body as before validation). */
export type CallInput<C extends OperationCall> = (C['params'] extends z.ZodMiniType
  ? { readonly params: z.output<C['params']> }
  : { readonly params?: undefined }) &
  (C['query'] extends z.ZodMiniType
    ? { readonly query: z.output<C['query']> }
    : { readonly query?: undefined }) &
  (C['body'] extends z.ZodMiniType
    ? { readonly body: z.input<C['body']> }
    : { readonly body?: undefined });

/** The success body of an operation. */
export type OperationResult<C extends OperationCall> = z.output<C['response']['schema']>;

/** The verdict of {@link checkPart}: the parsed value, or every issue and their message. */
export type PartVerdict =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string; readonly issues: readonly z.core.$ZodIssue[] };

/**
 * Runs the schema of one part of a request on `value`: the body (no `label`), or the path or
 * query parameters (`label` leads each problem: `path parameter id: …`). The server and the
 * client both check with it, so both phrase a problem alike.
 *
 * @example
 * checkPart(params, { id: 'x' }, 'path parameter');
 * // { ok: false, message: 'path parameter id: must be a whole number', issues: [ … ] }
 */
export function checkPart(schema: z.ZodMiniType, value: unknown, label?: string): PartVerdict {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const { issues } = result.error;
  return {
    ok: false,
    message: formatIssues(
      label
        ? issues.map((issue) => ({ ...issue, path: [`${label} ${issue.path.join('.')}`] }))
        : issues,
    ),
    issues,
  };
}
