import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);
import {
  StoreUnavailableError
} from "./chunk-ED44OKCU.js";

// ../../packages/schema/src/int64.ts
import { isLosslessNumber as isLosslessNumber2 } from "lossless-json";
import * as z2 from "zod/mini";

// ../../packages/schema/src/describe-value.ts
import { isLosslessNumber } from "lossless-json";
function describeValue(value) {
  if (value === void 0) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (isLosslessNumber(value)) return "a number";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
    case "bigint":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return `a ${typeof value}`;
  }
}

// ../../packages/schema/src/documented.ts
import { en } from "zod/locales";
import * as z from "zod/mini";
if (z.config().localeError === void 0) z.config(en());
function documented(schema, meta) {
  z.globalRegistry.add(schema, meta);
  return schema;
}

// ../../packages/schema/src/int64.ts
var INT64_MIN = -(2n ** 63n);
var INT64_MAX = 2n ** 63n - 1n;
var RANGE_MESSAGE = `must be an integer from ${INT64_MIN} to ${INT64_MAX}`;
function isInt64(value) {
  if (typeof value === "bigint") return value >= INT64_MIN && value <= INT64_MAX;
  return typeof value === "number" && Number.isSafeInteger(value);
}
var Int64 = documented(
  z2.pipe(
    z2.custom(isInt64, { error: (issue) => int64Problem(issue.input) }),
    z2.transform((value) => BigInt(value))
  ),
  {
    type: "integer",
    format: "int64",
    // Exact bigints: the document is written with a lossless JSON serializer (openapi/serialize.ts),
    // so the file holds -9223372036854775808 and 9223372036854775807 digit for digit.
    minimum: INT64_MIN,
    maximum: INT64_MAX,
    description: `A signed 64-bit integer, ${INT64_MIN} to ${INT64_MAX}, accepted exactly.`
  }
);
function int64Problem(input) {
  if (input === void 0) return "is required";
  if (typeof input === "number" && Number.isInteger(input) && isInt64(BigInt(input))) {
    return input > 0 ? `a number above 2^53 - 1 (Number.MAX_SAFE_INTEGER) is not exact: pass a bigint (got ${BigInt(input)})` : `a number below -(2^53 - 1) (Number.MIN_SAFE_INTEGER) is not exact: pass a bigint (got ${BigInt(input)})`;
  }
  if (typeof input === "number" && Number.isInteger(input)) {
    return `${RANGE_MESSAGE}, as a bigint beyond 2^53 - 1 (got the number ${BigInt(input)})`;
  }
  return `${RANGE_MESSAGE} (got ${describe(input)})`;
}
function describe(input) {
  if (isLosslessNumber2(input)) return "a non-integer number";
  if (typeof input === "bigint") return "an integer out of range";
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return "a number out of range";
    return "a non-integer number";
  }
  return describeValue(input);
}

// ../../packages/schema/src/contract.ts
import * as z5 from "zod/mini";

// ../../packages/schema/src/plant.ts
import * as z4 from "zod/mini";

// ../../packages/schema/src/text.ts
import * as z3 from "zod/mini";
var NAME_MAX_LENGTH = 200;
var TAG_MAX_LENGTH = 100;
var NO_CONTROL_CHARACTERS_PATTERN = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$";
var NO_CONTROL_CHARACTERS = new RegExp(NO_CONTROL_CHARACTERS_PATTERN, "u");
function boundedText(maxLength2, description, presence = "required") {
  const expected = presence === "optional" ? "must be a string, or left out" : "must be a string";
  const wrongType = (issue) => issue.input === void 0 ? "is required" : `${expected} (got ${describeValue(issue.input)})`;
  const text = z3.string({ error: wrongType }).check(
    z3.minLength(1, "must not be empty"),
    z3.maxLength(maxLength2, `must be at most ${maxLength2} characters`),
    z3.refine((s) => s.isWellFormed(), "must be well-formed Unicode (no lone surrogate)"),
    z3.refine((s) => NO_CONTROL_CHARACTERS.test(s), "must not contain control characters")
  );
  return documented(text, {
    description,
    minLength: 1,
    maxLength: maxLength2,
    pattern: NO_CONTROL_CHARACTERS_PATTERN
  });
}

// ../../packages/schema/src/plant.ts
var name = boundedText(NAME_MAX_LENGTH, "The name of the plant");
var tag = boundedText(TAG_MAX_LENGTH, "Tag that specifies the type of the plant", "optional");
var objectOnly = {
  error: (issue) => issue.code !== "invalid_type" ? void 0 : issue.input === void 0 ? "is required" : `must be an object (got ${describeValue(issue.input)})`
};
var PlantSchema = documented(z4.object({ name, tag: z4.optional(tag) }, objectOnly), {
  id: "Plant",
  description: "A plant in the store, as returned by the API (it has no `id`).",
  example: { name: "Monstera", tag: "indoor" }
});
var Plant = PlantSchema;
var NewPlant = documented(
  z4.strictObject({ id: Int64, name, tag: z4.optional(tag) }, objectOnly),
  {
    id: "NewPlant",
    description: "A plant to create: all fields of Plant plus the required `id`. Unknown properties are rejected.",
    example: { id: 10, name: "Monstera", tag: "indoor" }
  }
);
var NEW_PLANT_JSON_LIMITS = {
  maxMembers: 16,
  maxStringLength: 12 * (NAME_MAX_LENGTH + 2)
};
function toPlant(newPlant) {
  return newPlant.tag === void 0 ? { name: newPlant.name } : { name: newPlant.name, tag: newPlant.tag };
}

// ../../packages/schema/src/contract.ts
var RESPONSE_MEDIA_TYPES = {
  json: "application/json",
  html: "text/html; charset=utf-8",
  javascript: "text/javascript; charset=utf-8"
};
function defineRoute(route) {
  return route;
}
var Health = documented(z5.object({ status: z5.literal("ok") }), {
  id: "Health",
  description: "The probe answered.",
  example: { status: "ok" }
});
var ApiIndex = documented(
  z5.object({ docs: z5.literal("/docs"), openapi: z5.literal("/openapi.json") }),
  {
    id: "ApiIndex",
    description: "Where this API describes itself: its reference page and this document.",
    example: { docs: "/docs", openapi: "/openapi.json" }
  }
);
var createPlant = defineRoute({
  operationId: "createPlant",
  method: "post",
  path: "/plants",
  summary: "Create a plant",
  description: "Creates a new plant in the store and returns it (without its id).",
  tag: "plants",
  auth: "bearer",
  body: NewPlant,
  response: { status: 200, schema: Plant, description: "Plant response" },
  errors: [
    "validationFailed",
    "malformedJson",
    "jsonTooDeep",
    "missingBody",
    "malformedRequest",
    "unauthorized",
    "requestTimeout",
    "conflict",
    "payloadTooLarge",
    "unsupportedMediaType",
    "expectationFailed",
    "rateLimited",
    "internal",
    "storeUnavailable"
  ]
});
var getHealth = defineRoute({
  operationId: "getHealth",
  method: "get",
  path: "/healthz",
  summary: "Liveness probe",
  description: "Answers 200 while the process is alive. No credential needed.",
  tag: "operations",
  auth: "none",
  body: void 0,
  response: { status: 200, schema: Health, description: "The process is alive." },
  errors: ["internal"]
});
var getReadiness = defineRoute({
  operationId: "getReadiness",
  method: "get",
  path: "/readyz",
  summary: "Readiness probe",
  description: "Answers 200 when the store can commit (its last commit and a tiny write probe every few seconds succeeded), 503 when it cannot (disk full, read-only or deleted database file, database unreachable). No credential needed.",
  tag: "operations",
  auth: "none",
  body: void 0,
  response: { status: 200, schema: Health, description: "The store can commit." },
  errors: ["storeUnavailable", "internal"]
});
var getOpenApiDocument = defineRoute({
  operationId: "getOpenApiDocument",
  method: "get",
  path: "/openapi.json",
  summary: "This OpenAPI document",
  description: "The OpenAPI 3.1 document of this API, as JSON. No credential needed.",
  tag: "operations",
  auth: "none",
  body: void 0,
  response: {
    status: 200,
    schema: documented(z5.record(z5.string(), z5.unknown()), {
      description: "An OpenAPI 3.1 document."
    }),
    description: "The OpenAPI document."
  },
  errors: ["internal"]
});
var getIndex = defineRoute({
  operationId: "getIndex",
  method: "get",
  path: "/",
  summary: "Where the docs are",
  description: "Points to the API reference page (`/docs`) and this document (`/openapi.json`). No credential needed.",
  tag: "operations",
  auth: "none",
  body: void 0,
  response: { status: 200, schema: ApiIndex, description: "The paths of the docs." },
  errors: ["internal"]
});
var getDocs = defineRoute({
  operationId: "getDocs",
  method: "get",
  path: "/docs",
  summary: "API reference page",
  description: "This document rendered as an interactive HTML reference. The page and its script are served by this server: it loads nothing from any other host. No credential needed.",
  tag: "operations",
  auth: "none",
  body: void 0,
  responseType: "html",
  response: {
    status: 200,
    schema: documented(z5.string(), { description: "An HTML page." }),
    description: "The API reference page."
  },
  errors: ["internal"],
  documented: false
});
var getDocsScript = defineRoute({
  operationId: "getDocsScript",
  method: "get",
  path: "/docs/assets/api-reference.js",
  summary: "API reference page script",
  description: "The script that renders the API reference page. No credential needed.",
  tag: "operations",
  auth: "none",
  body: void 0,
  responseType: "javascript",
  response: {
    status: 200,
    schema: documented(z5.string(), { description: "A JavaScript program." }),
    description: "The renderer script of the API reference page."
  },
  errors: ["internal"],
  documented: false
});
var contract = {
  createPlant,
  getHealth,
  getReadiness,
  getOpenApiDocument,
  getIndex,
  getDocs,
  getDocsScript
};

// ../../packages/schema/src/error-catalog.ts
var ERROR_CATALOG = {
  validationFailed: {
    code: 40001,
    status: 400,
    meaning: "The body is JSON but not a valid NewPlant; the message names the problems by field (the first five, then how many more)."
  },
  malformedJson: {
    code: 40002,
    status: 400,
    meaning: "The body is not well-formed JSON (or repeats a key with different values)."
  },
  missingBody: {
    code: 40003,
    status: 400,
    meaning: "The request has no body, or an empty one; a NewPlant is required."
  },
  malformedRequest: {
    code: 40004,
    status: 400,
    meaning: "The HTTP request itself is malformed (request line, headers, chunked framing of the body, headers over 16 KiB, more than 2000 header fields, or no Host header in HTTP/1.1); the connection is closed."
  },
  jsonTooDeep: {
    code: 40005,
    status: 400,
    meaning: "The body is JSON that nests arrays and objects deeper than 64 levels (a NewPlant needs 1)."
  },
  unauthorized: {
    code: 40101,
    status: 401,
    meaning: "The bearer credential is missing, malformed, unknown, expired or revoked."
  },
  notFound: {
    code: 40401,
    status: 404,
    meaning: "No operation exists at this path."
  },
  methodNotAllowed: {
    code: 40501,
    status: 405,
    meaning: "The path exists but not with this method; the Allow header lists the methods."
  },
  requestTimeout: {
    code: 40801,
    status: 408,
    meaning: "The request body did not arrive completely within the request timeout (30 s after the request started); the connection is closed."
  },
  conflict: {
    code: 40901,
    status: 409,
    meaning: "A plant with this id already exists with a different name or tag. (The same id with the same name and tag is a safe replay and returns 200.)"
  },
  payloadTooLarge: {
    code: 41301,
    status: 413,
    meaning: "The body is larger than the configured limit (BODY_LIMIT, 64 KiB by default)."
  },
  unsupportedMediaType: {
    code: 41501,
    status: 415,
    meaning: "The body is not sent as application/json."
  },
  expectationFailed: {
    code: 41701,
    status: 417,
    meaning: "The request carries an Expect header other than 100-continue, the only one supported."
  },
  rateLimited: {
    code: 42901,
    status: 429,
    meaning: "Too many requests: this credential is over its rate limit, or this client address sent too many requests with a refused credential or without one; retry after the Retry-After seconds."
  },
  internal: {
    code: 50001,
    status: 500,
    meaning: "An unexpected failure in the server; it is logged, and nothing was stored."
  },
  storeUnavailable: {
    code: 50301,
    status: 503,
    meaning: "The store cannot be reached right now; retry after the Retry-After seconds."
  }
};
var ERROR_ENTRIES = Object.keys(ERROR_CATALOG).map((name2) => ({ name: name2, ...ERROR_CATALOG[name2] })).sort((a, b) => a.code - b.code);
var ERROR_STATUSES = [
  ...new Set(ERROR_ENTRIES.map((entry) => entry.status))
].sort((a, b) => a - b);

// ../../packages/schema/src/shortened.ts
var QUOTED_MAX_LENGTH = 40;
function shortened(text, maxLength2 = QUOTED_MAX_LENGTH) {
  if (text.length <= maxLength2) return text;
  const width = (at) => (text.codePointAt(at) ?? 0) > 65535 ? 2 : 1;
  let end = 0;
  for (let kept = 0; kept < maxLength2 - 1 && end < text.length; kept += 1) end += width(end);
  if (end >= text.length || end + width(end) >= text.length) return text;
  return `${text.slice(0, end)}\u2026`;
}

// ../../packages/schema/src/error-messages.ts
var PATH_MAX_LENGTH = 100;
var ERROR_MESSAGES = {
  validationFailed: {
    /** A body whose object has more than `maxMembers` members: not read past the one too many. */
    tooManyProperties: (error, maxMembers) => `(body): has more than ${maxMembers} properties: ${[
      ...error.firstKeys.map((key) => `\`${shortened(key)}\``),
      "\u2026"
    ].join(", ")}`
  },
  malformedJson: {
    /** `error` is what `parseJson` threw, e.g. `is not valid JSON (at character 17)`. */
    notJson: (error) => `Request body ${error.message}`,
    notUtf8: "Request body is not valid UTF-8",
    undecodable: "Request body could not be decoded as its Content-Encoding says",
    cutShort: "Request body ended before its declared length"
  },
  jsonTooDeep: (error) => `Request body ${error.message}`,
  missingBody: "Request body is required: send a NewPlant as application/json",
  malformedRequest: {
    noHost: "HTTP/1.1 requests must have a Host header",
    tooManyHeaders: (max) => `Request has more than ${max} header fields`,
    headersTooLarge: "Request headers are too large",
    unparsable: "Malformed HTTP request",
    tooManyPieces: (minBytes) => `Request body arrived in pieces of under ${minBytes} bytes on average: send it in fewer, larger writes`
  },
  unauthorized: {
    missing: "A bearer credential is required",
    refused: "The bearer credential is not valid"
  },
  notFound: (method, path) => `No operation at ${method} ${shortened(path, PATH_MAX_LENGTH)}`,
  methodNotAllowed: (method, path, allowed) => `${method} is not allowed on ${shortened(path, PATH_MAX_LENGTH)}; allowed: ${allowed.join(", ")}`,
  requestTimeout: (seconds) => `Request body did not arrive within ${seconds} s`,
  conflict: (id) => `A plant with id ${id} already exists with a different name or tag`,
  payloadTooLarge: (limitBytes) => limitBytes === void 0 ? "Request body is too large" : `Request body is larger than ${limitBytes} bytes`,
  unsupportedMediaType: {
    /** `given` is the request's media type, or `no content type`. */
    notJson: (given) => `Request body must be application/json, not ${shortened(given)}`,
    coding: "Request body must be application/json in UTF-8, with no content encoding other than gzip or deflate"
  },
  expectationFailed: "The only expectation this server meets is Expect: 100-continue",
  /** `who`: over the credential's own limit, the address's refused-credential limit, or its limit without a credential. */
  rateLimited: (who, seconds) => `${who === "credential" ? "Too many requests for this credential" : who === "address" ? "Too many requests from this address" : "Too many requests with a refused credential from this address"}; retry after ${seconds} second${seconds === 1 ? "" : "s"}`,
  internal: "Internal server error",
  storeUnavailable: {
    unreachable: "The store is unavailable; retry later",
    /** `cause` is the code of the store's last failure, e.g. `SQLITE_FULL`. */
    notReady: (cause) => `Not ready: the store cannot commit (${cause})`,
    shuttingDown: "Not ready: shutting down"
  }
};

// ../../packages/schema/src/format-issues.ts
var LISTED_PROBLEMS = 5;
var KEYS_ONE_BY_ONE = 3;
var NAMED_KEYS = 2;
var count = (n) => n.toLocaleString("en-US");
function pathOf(path) {
  return path.length === 0 ? "(body)" : path.map((key) => shortened(String(key))).join(".");
}
function unknownKeys(path, keys) {
  if (keys.length <= KEYS_ONE_BY_ONE) {
    return keys.map((key) => `${pathOf([...path, key])}: unknown property`);
  }
  const named = keys.slice(0, NAMED_KEYS).map((key) => `\`${pathOf([...path, key])}\``);
  return [`${named.join(", ")} and ${count(keys.length - NAMED_KEYS)} more: unknown properties`];
}
function formatIssues(issues) {
  const lines = [];
  let total = 0;
  const wrongType = /* @__PURE__ */ new Set();
  for (const issue of issues) {
    const path = issue.path.map(String).join("\0");
    if (wrongType.has(path)) continue;
    if (issue.code === "invalid_type") wrongType.add(path);
    const own = issue.code === "unrecognized_keys" ? unknownKeys(issue.path, issue.keys) : void 0;
    total += own?.length ?? 1;
    if (lines.length >= LISTED_PROBLEMS) continue;
    lines.push(...own ?? [`${pathOf(issue.path)}: ${issue.message}`]);
  }
  if (total <= LISTED_PROBLEMS) return lines.join("; ");
  const listed = lines.slice(0, LISTED_PROBLEMS);
  return `${listed.join("; ")}; and ${count(total - listed.length)} more problems`;
}

// ../../packages/schema/src/json.ts
import { isInteger, LosslessNumber, parse, stringify } from "lossless-json";
var MalformedJsonError = class extends Error {
  name = "MalformedJsonError";
};
var MAX_JSON_DEPTH = 64;
var JsonTooDeepError = class extends Error {
  name = "JsonTooDeepError";
};
var MAX_EXPONENT = 30;
var MAX_INTEGER_DIGITS = 400;
var DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
function parseJsonNumber(text) {
  if (isInteger(text)) return text.length > MAX_INTEGER_DIGITS ? Number(text) : BigInt(text);
  const match = DECIMAL.exec(text);
  if (match) {
    const [, sign = "", whole = "", fraction = "", exponentText = "0"] = match;
    const exponent = Number(exponentText);
    const digits = (whole + fraction).replace(/^0+(?=\d)/, "");
    const scale = exponent - fraction.length;
    if (/^0+$/.test(digits)) return 0n;
    if (digits.length + scale > MAX_INTEGER_DIGITS) return Number(text);
    if (scale >= 0) {
      if (scale <= MAX_EXPONENT) return BigInt(`${sign}${digits}${"0".repeat(scale)}`);
    } else if (-scale < digits.length && /^0+$/.test(digits.slice(scale))) {
      return BigInt(`${sign}${digits.slice(0, scale)}`);
    }
  }
  return Number(text);
}
var MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
var MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
var HUGE = 10 ** (MAX_EXPONENT + 1);
function toSchemaNumber(text) {
  const value = parseJsonNumber(text);
  if (typeof value === "bigint") {
    return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
  }
  return Number.isInteger(value) && Math.abs(value) < HUGE ? new LosslessNumber(text) : value;
}
var JsonTooWideError = class extends Error {
  constructor(firstKeys) {
    super("has an object with too many members");
    this.firstKeys = firstKeys;
  }
  firstKeys;
  name = "JsonTooWideError";
};
function parseJson(text, options = {}) {
  const plain = options.flatRecord && plainFlatRecord(text, options.flatRecord);
  if (plain) return plain;
  let source = text;
  let originalAt = (position) => position;
  if (options.flatRecord) {
    ({ text: source, originalAt } = flatRecordText(text, options.flatRecord));
  } else {
    const tooDeepAt = depthExceededAt(text, MAX_JSON_DEPTH);
    if (tooDeepAt !== -1) throw tooDeep(tooDeepAt);
  }
  try {
    return parse(source, null, toSchemaNumber);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const duplicate = /^Duplicate key '(.*)' encountered/s.exec(reason);
    if (duplicate)
      throw new MalformedJsonError(`repeats the key "${shortened(duplicate[1] ?? "")}"`);
    const position = /at position (\d+)/.exec(reason);
    throw new MalformedJsonError(
      position ? `is not valid JSON (at character ${originalAt(Number(position[1]))})` : "is not valid JSON"
    );
  }
}
var PLAIN_MEMBER = '[ \\t\\n\\r]*""[ \\t\\n\\r]*:[ \\t\\n\\r]*(?:""|0|-?[1-9][0-9]{0,15}|true|false|null)[ \\t\\n\\r]*';
var PLAIN_SKELETON = new RegExp(
  `^[ \\t\\n\\r]*\\{(?:${PLAIN_MEMBER}(?:,${PLAIN_MEMBER})*|[ \\t\\n\\r]*)\\}[ \\t\\n\\r]*$`
);
var STRING_CONTENT = /"[^"\u0000-\u001f]*"/g;
function plainFlatRecord(text, limits) {
  if (text.length > limits.maxStringLength || text.includes("\\")) return void 0;
  const skeleton = text.replace(STRING_CONTENT, '""');
  if (!PLAIN_SKELETON.test(skeleton)) return void 0;
  const members = skeleton.split(":").length - 1;
  if (members > limits.maxMembers) return void 0;
  const record2 = JSON.parse(text);
  const values = Object.values(record2);
  if (values.length !== members) return void 0;
  return values.every((value) => typeof value !== "number" || Number.isSafeInteger(value)) ? record2 : void 0;
}
function tooDeep(at) {
  return new JsonTooDeepError(
    `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (at character ${at})`
  );
}
var OPEN_BRACKET = 91;
var OPEN_BRACE = 123;
var CLOSE_BRACKET = 93;
var CLOSE_BRACE = 125;
var QUOTE = 34;
var BACKSLASH = 92;
var COLON = 58;
var LETTER_U = 117;
var JSON_WHITESPACE = /* @__PURE__ */ new Set([32, 9, 10, 13]);
var NAMED_KEYS2 = 3;
function depthExceededAt(text, maxDepth) {
  if (text.length <= maxDepth) return -1;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index += 1;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) {
      inString = true;
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      depth += 1;
      if (depth > maxDepth) return index;
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return -1;
}
function flatRecordText(text, limits) {
  const parts = [];
  let copied = 0;
  let length = 0;
  const skips = [];
  const replace = (from, to, replacement = "") => {
    parts.push(text.slice(copied, from), replacement);
    length += from - copied + replacement.length;
    skips.push({ from: length, add: (skips.at(-1)?.add ?? 0) + (to - from - replacement.length) });
    copied = to;
  };
  let inObject = false;
  let members = 0;
  let lastString = -1;
  const keys = [];
  let valueStart = 0;
  while (JSON_WHITESPACE.has(text.charCodeAt(valueStart))) valueStart += 1;
  let index = 0;
  while (index < text.length) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) {
      const end = stringEnd(text, index);
      if (end === text.length)
        throw new MalformedJsonError(`is not valid JSON (at character ${end})`);
      if (end - index - 1 > limits.maxStringLength) {
        const cut = cutPoint(text, index + 1, index + 1 + limits.maxStringLength);
        replace(cut, end + 1, '"');
      }
      lastString = index;
      index = end + 1;
    } else if (char === OPEN_BRACE && index === valueStart) {
      inObject = true;
      index += 1;
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      const close = containerEnd(text, index, inObject ? 1 : 0);
      replace(index + 1, close);
      index = close + 1;
    } else {
      if (char === COLON && inObject) {
        members += 1;
        if (keys.length < NAMED_KEYS2 && lastString !== -1) keys.push(lastString);
        if (members > limits.maxMembers) throw tooWide(text, keys);
      }
      index += 1;
    }
  }
  if (skips.length === 0) return { text, originalAt: (position) => position };
  parts.push(text.slice(copied));
  const originalAt = (position) => position + (skips.findLast((skip) => skip.from <= position)?.add ?? 0);
  return { text: parts.join(""), originalAt };
}
function stringEnd(text, start) {
  let index = start;
  for (; ; ) {
    index = text.indexOf('"', index + 1);
    if (index === -1) return text.length;
    let before = index - 1;
    while (text.charCodeAt(before) === BACKSLASH) before -= 1;
    if ((index - 1 - before) % 2 === 0) return index;
  }
}
function cutPoint(text, from, limit) {
  let index = from;
  for (; ; ) {
    let width = 1;
    const char = text.charCodeAt(index);
    if (char === BACKSLASH) {
      width = text.charCodeAt(index + 1) === LETTER_U ? 6 : 2;
      const unit = Number.parseInt(text.slice(index + 2, index + 6), 16);
      if (width === 6 && unit >= 55296 && unit <= 56319) {
        if (text.charCodeAt(index + 6) === BACKSLASH) width = 12;
      }
    } else if (char >= 55296 && char <= 56319) {
      width = 2;
    }
    if (index + width > limit) return index;
    index += width;
  }
}
var STRUCTURAL = /["[\]{}]/g;
var STRUCTURAL_CODES = new Uint8Array(128);
for (const code of [QUOTE, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE]) {
  STRUCTURAL_CODES[code] = 1;
}
function containerEnd(text, start, depth) {
  const closing = new Uint8Array(MAX_JSON_DEPTH + 1);
  const deepest = MAX_JSON_DEPTH - depth;
  let open = 0;
  for (let index = start; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (open === deepest) throw tooDeep(index);
      closing[open] = char + 2;
      open += 1;
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) {
      open -= 1;
      if (open < 0 || closing[open] !== char) {
        throw new MalformedJsonError(`is not valid JSON (at character ${index})`);
      }
      if (open === 0) return index;
    } else if (char === QUOTE) {
      index = stringEnd(text, index);
    } else if (STRUCTURAL_CODES[text.charCodeAt(index + 1)] !== 1) {
      STRUCTURAL.lastIndex = index;
      index = (STRUCTURAL.exec(text)?.index ?? text.length) - 1;
    }
  }
  return text.length;
}
function tooWide(text, keys) {
  return new JsonTooWideError(keys.map((start) => keyAt(text, start)));
}
function keyAt(text, start) {
  const raw = text.slice(start, stringEnd(text, start) + 1);
  try {
    return String(JSON.parse(raw));
  } catch {
    return raw;
  }
}

// ../../packages/schema/src/rate-limit-headers.ts
var RATE_LIMIT_HEADERS = {
  limit: "X-RateLimit-Limit",
  remaining: "X-RateLimit-Remaining",
  reset: "X-RateLimit-Reset"
};

// src/store/batched-store.ts
var READY = { ready: true };
var CLOSED = {
  ready: false,
  cause: {
    code: "CLOSED",
    message: "The plant store is closed",
    action: "The server is shutting down."
  }
};
var BatchedStore = class {
  #options;
  #maxInFlight;
  #inFlight = /* @__PURE__ */ new Set();
  #waiting = [];
  #nextBatch;
  #commits = 0;
  #creates = 0;
  #state = READY;
  #probing;
  #timer;
  #closed = false;
  constructor(options, maxInFlight = 1) {
    this.#options = options;
    this.#maxInFlight = maxInFlight;
  }
  /** An adapter calls it once the database is open. */
  startProbing() {
    void this.#probeIfIdle();
    const every = this.#options.probeIntervalMs ?? 2e3;
    this.#timer = setInterval(() => void this.#probeIfIdle(), every).unref();
  }
  create(plant) {
    if (this.#closed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      this.#waiting.push({ plant, resolve, reject });
      this.#schedule();
    });
  }
  async ping() {
    if (this.#closed) throw closedError();
    return this.query1().catch((error) => Promise.reject(this.translate(error)));
  }
  readiness() {
    return this.#closed ? CLOSED : this.#state;
  }
  async probeReadiness() {
    await this.#probing;
    return this.#probeIfIdle();
  }
  stats() {
    return { commits: this.#commits, creates: this.#creates };
  }
  /** Commits every queued create, then releases the database. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    clearImmediate(this.#nextBatch);
    this.#nextBatch = void 0;
    while (this.#waiting.length > 0 || this.#inFlight.size > 0) {
      while (this.#waiting.length > 0 && this.#inFlight.size < this.#maxInFlight) {
        this.#startBatch();
      }
      if (this.#inFlight.size > 0) await Promise.race(this.#inFlight);
    }
    await this.#probing;
    await this.release();
  }
  #schedule() {
    if (this.#nextBatch !== void 0 || this.#waiting.length === 0) return;
    if (this.#inFlight.size >= this.#maxInFlight) return;
    this.#nextBatch = setImmediate(() => {
      this.#nextBatch = void 0;
      for (let slots = this.#maxInFlight - this.#inFlight.size; slots > 0; slots -= 1) {
        if (this.#waiting.length === 0) break;
        this.#startBatch();
      }
      this.#schedule();
    });
  }
  #startBatch() {
    const batch = this.#waiting.splice(0, this.#options.maxBatchSize ?? 1e3);
    const started = performance.now();
    let results;
    try {
      results = this.commitBatch(batch.map((entry) => entry.plant));
    } catch (error) {
      return this.#settle(batch, started, error);
    }
    if (!(results instanceof Promise)) return this.#settle(batch, started, void 0, results);
    const finish = (error, values) => {
      this.#inFlight.delete(done);
      this.#schedule();
      this.#settle(batch, started, error, values);
    };
    const done = results.then((values) => finish(void 0, values), finish);
    this.#inFlight.add(done);
  }
  /** Readiness follows the batch: one row unreachable means all are. */
  #settle(batch, started, error, results) {
    const seconds = (performance.now() - started) / 1e3;
    this.#options.observer?.onCommit?.(batch.length, seconds, results !== void 0);
    this.#creates += batch.length;
    if (results === void 0) {
      const translated = this.translate(error);
      this.#note({ ready: false, cause: this.describe(translated) });
      for (const entry of batch) entry.reject(translated);
      return;
    }
    this.#commits += 1;
    const errors = results.map((result) => result.ok ? void 0 : this.translate(result.error));
    const down = errors.find((e) => e instanceof StoreUnavailableError);
    if (down !== void 0) this.#note({ ready: false, cause: this.describe(down) });
    else if (results.some((result) => result.ok)) this.#note(READY);
    batch.forEach((entry, index) => {
      const result = results[index];
      if (result === void 0) entry.reject(new Error("The batch commit returned no result"));
      else if (result.ok) entry.resolve(result.value);
      else entry.reject(errors[index]);
    });
  }
  #probeIfIdle() {
    this.#probing ??= this.#probe().finally(() => {
      this.#probing = void 0;
    });
    return this.#probing;
  }
  async #probe() {
    try {
      if (this.#closed) throw closedError();
      await this.probeWrite();
      this.#note(READY);
    } catch (error) {
      this.#note({ ready: false, cause: this.describe(this.translate(error)) });
    }
    return this.#state;
  }
  #note(next) {
    const previous = this.#state;
    this.#state = next;
    const key = (readiness) => readiness.ready || readiness.cause.code;
    if (key(previous) !== key(next)) this.#options.onReadinessChange?.(next, previous);
  }
};
var closedError = () => new StoreUnavailableError("The plant store is closed");

export {
  INT64_MIN,
  INT64_MAX,
  NEW_PLANT_JSON_LIMITS,
  toPlant,
  RESPONSE_MEDIA_TYPES,
  contract,
  ERROR_CATALOG,
  ERROR_MESSAGES,
  formatIssues,
  MalformedJsonError,
  JsonTooDeepError,
  JsonTooWideError,
  parseJson,
  RATE_LIMIT_HEADERS,
  BatchedStore
};
//# sourceMappingURL=chunk-UVURL2WZ.js.map