import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, { required?: boolean }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components: { responses: Record<string, ResponseObject> };
}

const require = createRequire(import.meta.url);
const DOCUMENT_PATH = require.resolve('@plant-store/schema/openapi.json');

/**
 * Checks response bodies against the committed, generated OpenAPI document (or another one,
 * e.g. `buildOpenApiDocument(fixtureContract)`) with Ajv (JSON Schema 2020-12, which OpenAPI
 * 3.1 uses): an independent check of what the zod schemas promise, not the zod schemas
 * themselves. A request path finds its operation by the document's path templates
 * (`/plants/10` → `/plants/{id}`).
 *
 * @example
 * const validator = new OpenApiResponseValidator();
 * validator.assertResponse('post', '/plants', 200, { name: 'Fern' });
 */
export class OpenApiResponseValidator {
  readonly document: OpenApiDocument;
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();

  /** `document`: a file to read, or a document as built (a bigint bound read as a number). */
  constructor(document: string | object = DOCUMENT_PATH) {
    const text =
      typeof document === 'string'
        ? readFileSync(document, 'utf8')
        : JSON.stringify(document, (_, value) =>
            typeof value === 'bigint' ? Number(value) : value,
          );
    this.document = JSON.parse(text) as OpenApiDocument;
    this.ajv.addFormat('int32', { type: 'number', validate: isInt32 });
    this.ajv.addFormat('int64', { type: 'number', validate: Number.isInteger });
    this.ajv.addSchema({ ...this.document, $id: 'openapi.json' });
  }

  /**
   * Throws unless `body` is what the document promises for `status` of `method path`. An
   * error status not listed for the operation (404, 405) is checked against its response
   * component.
   */
  assertResponse(
    method: string,
    path: string,
    status: number,
    body: unknown,
    /** The response's headers: each header the document marks `required` must be present. */
    headers?: Headers,
  ): void {
    if (headers) {
      const declared = this.responseObject(method, path, status)?.headers ?? {};
      for (const [name, header] of Object.entries(declared)) {
        if (header.required && !headers.has(name)) {
          throw new Error(
            `${method.toUpperCase()} ${path} ${status}: the document requires a ${name} header`,
          );
        }
      }
    }
    const validate = this.validatorFor(method, path, status);
    if (!validate(body)) {
      throw new Error(
        `${method.toUpperCase()} ${path} ${status}: body does not match the OpenAPI document: ` +
          `${this.ajv.errorsText(validate.errors)}; body: ${JSON.stringify(body)}`,
      );
    }
  }

  /**
   * The document's path (template) a request path is answered by: itself when listed, else the
   * template whose `{name}` segments match its segments (query ignored); itself when none does.
   */
  pathOf(requestPath: string): string {
    const path = requestPath.split('?')[0] ?? requestPath;
    if (this.document.paths[path]) return path;
    const segments = path.split('/');
    const template = Object.keys(this.document.paths).find((candidate) => {
      const parts = candidate.split('/');
      return (
        parts.length === segments.length &&
        parts.every((part, index) => /^\{[^}]+\}$/.test(part) || part === segments[index])
      );
    });
    return template ?? path;
  }

  /** The document's Response Object for a status (a `$ref` resolved; 404/405 by component). */
  private responseObject(method: string, requestPath: string, status: number) {
    const path = this.pathOf(requestPath);
    const listed = this.document.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
    const ref =
      listed?.$ref ??
      (listed === undefined
        ? `#/components/responses/${{ 404: 'NotFound', 405: 'MethodNotAllowed' }[status]}`
        : undefined);
    if (ref === undefined) return listed;
    return this.document.components.responses[ref.replace('#/components/responses/', '')];
  }

  private validatorFor(method: string, requestPath: string, status: number): ValidateFunction {
    const path = this.pathOf(requestPath);
    const key = `${method} ${path} ${status}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const response = this.document.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
    let pointer: string;
    if (response === undefined) {
      const component = { 404: 'NotFound', 405: 'MethodNotAllowed' }[status];
      if (!component) throw new Error(`${key}: the OpenAPI document does not list this response`);
      pointer = `#/components/responses/${component}`;
    } else if (response.$ref) {
      pointer = response.$ref;
    } else {
      pointer = `#/paths/${escapePointer(path)}/${method.toLowerCase()}/responses/${status}`;
    }
    const validate = this.ajv.compile({
      $ref: `openapi.json${pointer}/content/application~1json/schema`,
    });
    this.cache.set(key, validate);
    return validate;
  }
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isInt32(value: number): boolean {
  return Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31;
}
