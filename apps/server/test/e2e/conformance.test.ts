import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.ts';
import { type PrismProxy, startPrismProxy } from '../security/prism.ts';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';

// Conformance through Stoplight Prism (@stoplight/prism-cli 5.14.2) as a validating proxy in
// front of the real server: the e2e requests go through `prism proxy` and every response is
// checked by Prism against the committed openapi.json. Three proxies:
// - enforcing: `--errors --validate-request=false`: every request to a documented operation
//   is forwarded, and a response that violates the document would become Prism's own 500;
// - reporting: no `--errors`: every request is forwarded (invalid ones and unknown paths
//   included) and Prism lists what it found in the `sl-violations` header: the server's
//   responses must show none, and Prism's reading of the requests must agree with the server;
// - a control in front of a server that lies, which must be caught (so the checks can fail).
//
// What cannot go through Prism 5.14 (its limits, not the API's), so is checked only by the
// e2e and fuzz tests with Ajv:
// - malformed JSON: Prism's server (prism-http-server 5.16) never answers it — its body parser
//   throws and the handler waits for an 'end' event that has already been emitted;
// - ids beyond 2^53 and repeated keys: Prism parses the body with JSON.parse and forwards
//   JSON.stringify of it, so 9223372036854775807 arrives as 9223372036854776000, and a
//   repeated key arrives once; it also validates int64 as at most 2^53 − 1.

let server: TestServer;
let enforcing: PrismProxy;
let reporting: PrismProxy;
let control: PrismProxy;
let liar: Server;

beforeAll(async () => {
  server = await startTestServer();
  liar = createServer((request, response) => {
    request.resume();
    // POST /plants: a Plant without its name; anything else: an Error without its code.
    const body = request.url === '/plants' ? { tag: 'lies' } : { message: 'no code' };
    response.writeHead(request.url === '/plants' ? 200 : 500, {
      'content-type': 'application/json',
    });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
  const liarUrl = `http://127.0.0.1:${(liar.address() as AddressInfo).port}`;
  [enforcing, reporting, control] = await Promise.all([
    startPrismProxy(server.url, ['--errors', '--validate-request=false']),
    startPrismProxy(server.url),
    startPrismProxy(liarUrl, ['--errors', '--validate-request=false']),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([enforcing?.stop(), reporting?.stop(), control?.stop()]);
  await new Promise((resolve) => liar?.close(resolve));
  await server?.dispose();
});

interface Case {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** The server's answer (Prism forwards it unchanged). */
  readonly status: number;
  /** Whether Prism should find the request itself valid against the document. */
  readonly validRequest: boolean;
  /** Prism answers this one itself in enforcing mode (no credential, or no such operation). */
  readonly reportingOnly?: boolean;
}

// The server's token is known only once it runs: cases name it, `send` fills it in.
const TOKEN = '<token>';
const auth = (): Record<string, string> => ({ authorization: `Bearer ${TOKEN}` });
const json = { 'content-type': 'application/json' };

/** The e2e request set: each kind of answer the API gives. Ids differ per proxy (offset). */
function cases(offset: number): Case[] {
  const id = (n: number) => offset + n;
  const post = (
    body: string | undefined,
    extra: Partial<Case> & Pick<Case, 'label' | 'status' | 'validRequest'>,
  ): Case => ({
    method: 'POST',
    path: '/plants',
    headers: { ...auth(), ...json },
    ...(body === undefined ? {} : { body }),
    ...extra,
  });
  return [
    post(`{"id": ${id(1)}, "name": "Monstera", "tag": "indoor"}`, {
      label: 'create with a tag',
      status: 200,
      validRequest: true,
    }),
    post(`{"id": ${id(2)}, "name": "Fern"}`, {
      label: 'create without a tag',
      status: 200,
      validRequest: true,
    }),
    post(`{"id": ${id(2)}, "name": "Fern"}`, {
      label: 'identical replay',
      status: 200,
      validRequest: true,
    }),
    post(`{"id": ${id(2)}, "name": "Cactus"}`, {
      label: 'same id, other name',
      status: 409,
      validRequest: true,
    }),
    post(`{"id": ${id(3)}, "name": "${'🌱'.repeat(200)}"}`, {
      label: 'a name of 200 characters',
      status: 200,
      validRequest: true,
    }),
    post(`{"id": ${id(4)}}`, { label: 'missing name', status: 400, validRequest: false }),
    post(`{"id": "${id(5)}", "name": "Fern"}`, {
      label: 'id as a string',
      status: 400,
      validRequest: false,
    }),
    post(`{"id": ${id(6)}.5, "name": "Fern"}`, {
      label: 'fractional id',
      status: 400,
      validRequest: false,
    }),
    post(`{"id": ${id(7)}, "name": "Fern", "wheels": 4}`, {
      label: 'unknown property',
      status: 400,
      validRequest: false,
    }),
    post(`{"id": ${id(8)}, "name": "Fern", "tag": null}`, {
      label: 'null tag',
      status: 400,
      validRequest: false,
    }),
    post(`{"id": ${id(9)}, "name": "${'x'.repeat(201)}"}`, {
      label: 'name over 200',
      status: 400,
      validRequest: false,
    }),
    post(`{"id": ${id(10)}, "name": ""}`, {
      label: 'empty name',
      status: 400,
      validRequest: false,
    }),
    post('[1, 2]', { label: 'an array', status: 400, validRequest: false }),
    post(undefined, { label: 'no body', status: 400, validRequest: false }),
    post(`{"id": ${id(11)}, "name": "${'x'.repeat(DEFAULTS.bodyLimitBytes)}"}`, {
      label: 'body over the default BODY_LIMIT',
      status: 413,
      validRequest: false,
    }),
    post(`id=${id(12)}&name=Fern`, {
      label: 'form-encoded body',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      status: 415,
      validRequest: false,
    }),
    post(`{"id": ${id(13)}, "name": "Fern"}`, {
      label: 'text/plain body',
      headers: { ...auth(), 'content-type': 'text/plain' },
      status: 415,
      validRequest: false,
    }),
    post(`{"id": ${id(14)}, "name": "Fern"}`, {
      label: 'unknown token',
      headers: { authorization: 'Bearer not-a-known-token-0123456789', ...json },
      status: 401,
      validRequest: true,
    }),
    post(`{"id": ${id(15)}, "name": "Fern"}`, {
      label: 'no credential',
      headers: json,
      status: 401,
      validRequest: false,
      reportingOnly: true,
    }),
    post(`{"id": ${id(16)}, "name": "Fern"}`, {
      label: 'another scheme',
      headers: { authorization: 'Basic dXNlcjpwYXNz', ...json },
      status: 401,
      validRequest: false,
      reportingOnly: true,
    }),
    {
      label: 'unknown path',
      method: 'GET',
      path: '/nowhere',
      status: 404,
      validRequest: false,
      reportingOnly: true,
    },
    {
      label: 'GET /plants',
      method: 'GET',
      path: '/plants',
      headers: auth(),
      status: 405,
      validRequest: false,
      reportingOnly: true,
    },
    {
      label: 'DELETE /plants',
      method: 'DELETE',
      path: '/plants',
      headers: auth(),
      status: 405,
      validRequest: false,
      reportingOnly: true,
    },
    { label: 'the index', method: 'GET', path: '/', status: 200, validRequest: true },
    { label: 'liveness', method: 'GET', path: '/healthz', status: 200, validRequest: true },
    { label: 'readiness', method: 'GET', path: '/readyz', status: 200, validRequest: true },
    {
      label: 'the document',
      method: 'GET',
      path: '/openapi.json',
      status: 200,
      validRequest: true,
    },
    // Served, but not an operation of the document (an HTML page for browsers): like any path
    // the document does not list, it goes only through the forwarding proxy.
    {
      label: 'the reference page (not in the document)',
      method: 'GET',
      path: '/docs',
      status: 200,
      validRequest: true,
      reportingOnly: true,
    },
  ];
}

interface Violation {
  readonly location: string[];
  readonly severity: string;
  readonly message: string;
}

async function send(proxy: PrismProxy, c: Case) {
  const response = await fetch(`${proxy.url}${c.path}`, {
    method: c.method,
    headers: Object.fromEntries(
      Object.entries(c.headers ?? {}).map(([name, value]) => [
        name,
        value.replace(TOKEN, server.token),
      ]),
    ),
    ...(c.body === undefined ? {} : { body: c.body }),
  });
  const text = await response.text();
  const header = response.headers.get('sl-violations');
  const violations: Violation[] = header ? (JSON.parse(header) as Violation[]) : [];
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text,
    violations,
  };
}

describe('through prism proxy --errors (responses enforced)', () => {
  for (const c of cases(1_000).filter((c) => !c.reportingOnly)) {
    it(`${c.label}: ${c.method} ${c.path} → ${c.status}, no violation`, async () => {
      const reply = await send(enforcing, c);
      // A violating response would be Prism's own 500 (application/problem+json).
      expect(reply.type, reply.text.slice(0, 500)).not.toMatch(/problem\+json/);
      expect(reply.status, reply.text.slice(0, 500)).toBe(c.status);
      expect(reply.violations.filter((v) => v.location[0] === 'response')).toEqual([]);
    });
  }

  it('logged no violation of a response', () => {
    expect(enforcing.log()).not.toMatch(/Violation: response/);
  });
});

describe('through prism proxy (everything forwarded, violations reported)', () => {
  for (const c of cases(2_000)) {
    it(`${c.label}: ${c.method} ${c.path} → ${c.status}, no response violation`, async () => {
      const reply = await send(reporting, c);
      expect(reply.status, reply.text.slice(0, 500)).toBe(c.status);
      expect(reply.violations.filter((v) => v.location[0] === 'response')).toEqual([]);
      // Prism's own reading of the request agrees with the server's answer.
      const requestProblems = reply.violations.filter(
        (v) => v.location[0] === 'request' && v.severity === 'Error',
      );
      if (c.validRequest) expect(requestProblems).toEqual([]);
      else if (c.status !== 404 && c.status !== 405)
        expect(requestProblems.length).toBeGreaterThan(0);
    });
  }

  it('logged no violation of a response', () => {
    expect(reporting.log()).not.toMatch(/Violation: response/);
  });
});

describe('the control: a server that breaks the document', () => {
  it('is caught: a 200 Plant without its name becomes a 500 listing the violation', async () => {
    const reply = await send(control, cases(0)[0] as Case);
    expect(reply.status).toBe(500);
    expect(reply.type).toMatch(/problem\+json/);
    const violations = reply.violations.filter((v) => v.location[0] === 'response');
    expect(violations.map((v) => v.message).join('; ')).toMatch(/name/);
  });

  it('is caught: an Error without its code', async () => {
    const reply = await send(control, {
      label: 'liveness',
      method: 'GET',
      path: '/healthz',
      status: 200,
      validRequest: true,
    });
    expect(reply.status).toBe(500);
    expect(reply.violations.some((v) => v.location[0] === 'response')).toBe(true);
  });
});
