// biome-ignore-all format: the examples as their JSDoc writes them
// biome-ignore-all lint/correctness/noUnusedVariables: an example names what it shows
// Generated from the @example blocks of src/*.ts by
// `pnpm --filter @plant-store/client run consumer-types`: do not edit. Type-checked by the
// package's typecheck (a wrong example fails it); never run.

import { buildHttpRequest, callOperation, createPlantStoreClient, readResponse } from '../../src/client.ts';
import { describeBody, errorFromResponse, PlantStoreError, PlantStoreNetworkError, PlantStoreValidationError, parseBody } from '../../src/errors.ts';
import { resolveClientConfig } from '../../src/options.ts';
import { Pacer, readRateLimit } from '../../src/pacer.ts';
import { headerNumber, nextRetryDelay, parseRetryAfter, sendOnce, sendWithRetries } from '../../src/retry.ts';
import { validateBody, validateNewPlant } from '../../src/validate.ts';
import { baseUrl, body, client, config, contract, createPlantCall, ErrorBody, error, fetcher, headers, NewPlant, ofetch, policy, request, response, send, settings, token, url } from './jsdoc-context.ts';

// src/client.ts, createPlantStoreClient
export async function example1(): Promise<void> {
  const client = createPlantStoreClient({ baseUrl: 'http://127.0.0.1:3000', token: 'secret' });
  const plant = await client.createPlant({ id: 2n ** 63n - 1n, name: 'Monstera', tag: 'indoor' });
  // { name: 'Monstera', tag: 'indoor' }
}

// src/client.ts, createPlantStoreClient
export async function example2(): Promise<void> {
  // Over the rate limit for longer than the client waits: back off as the server asks.
  try {
    await client.createPlant({ id: 7, name: 'Fern' });
  } catch (error) {
    if (error instanceof PlantStoreError && error.status === 429) {
      // error.code === 42901; retry in error.retryAfter seconds
    }
  }
}

// src/client.ts, callOperation
export async function example3(): Promise<void> {
  const plant = await callOperation(config, createPlantCall, { body: { id: 10n, name: 'Monstera' } });
  const health = await callOperation(config, contract.getHealth, {});
}

// src/client.ts, buildHttpRequest
export async function example4(): Promise<void> {
  buildHttpRequest(createPlantCall, settings, { body: { id: 1, name: 'Fern' } });
  // { url: 'http://api.test/plants', method: 'POST', headers: { accept, authorization }, body: '{"id":1,"name":"Fern"}', … }
}

// src/client.ts, readResponse
export async function example5(): Promise<void> {
  const plant = readResponse(createPlantCall, url, await sendWithRetries(send, policy));
}

// src/errors.ts, PlantStoreError
export async function example6(): Promise<void> {
  try {
    await client.createPlant({ id: 10, name: 'Monstera' });
  } catch (error) {
    if (error instanceof PlantStoreError && error.code === 40901) {
      // conflict: id 10 is taken by another plant
    } else if (error instanceof PlantStoreError && error.code === 42901) {
      // rate limited: come back in error.retryAfter seconds
    }
  }
}

// src/errors.ts, PlantStoreNetworkError
export async function example7(): Promise<void> {
  try {
    await client.createPlant({ id: 11, name: 'Fern' });
  } catch (error) {
    if (error instanceof PlantStoreNetworkError && error.timedOut) {
      // the API did not answer within timeoutMs, on any attempt
    }
  }
}

// src/errors.ts, PlantStoreValidationError
export async function example8(): Promise<void> {
  try {
    await client.createPlant({ id: 1.5, name: '' });
  } catch (error) {
    if (error instanceof PlantStoreValidationError) console.log(error.issues.length); // 2
  }
}

// src/errors.ts, errorFromResponse
export async function example9(): Promise<void> {
  errorFromResponse('createPlant', response, 1);
  // PlantStoreError { status: 409, code: 40901, message: 'A plant with id 10 already exists …' }
}

// src/errors.ts, parseBody
export async function example10(): Promise<void> {
  parseBody(ErrorBody, '{"error":40901,"message":"…"}'); // { success: true, data: { error: 40901, … } }
  parseBody(ErrorBody, '<html>'); // SyntaxError
}

// src/errors.ts, describeBody
export async function example11(): Promise<void> {
  describeBody({ contentType: 'text/html', text: '<html>\n  <body>Bad gateway</body>\n</html>' });
  // 'text/html: "<html> <body>Bad gateway</body> </html>"'
}

// src/options.ts, resolveClientConfig
export async function example12(): Promise<void> {
  resolveClientConfig({ baseUrl: 'http://127.0.0.1:3000', token: 't' }).retry;
  // { retries: 2, retryDelayMs: 250, maxRetryDelayMs: 10000 }
}

// src/pacer.ts, readRateLimit
export async function example13(): Promise<void> {
  readRateLimit(new Headers({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '2' }));
  // { limit: 100, remaining: 7, reset: 2 }
}

// src/pacer.ts, Pacer
export async function example14(): Promise<void> {
  const pacer = new Pacer();
  const client = createPlantStoreClient({ baseUrl, token, pacer });
}

// src/retry.ts, nextRetryDelay
export async function example15(): Promise<void> {
  const policy = { retries: 2, retryDelayMs: 100, maxRetryDelayMs: 5_000 };
  nextRetryDelay(policy, { kind: 'failure', error, timedOut: false }, 2); // 200
  nextRetryDelay(policy, { ...response, status: 429, retryAfter: 1 }, 1); // 1000
  nextRetryDelay(policy, { ...response, status: 429, retryAfter: 60 }, 1); // undefined
}

// src/retry.ts, headerNumber
export async function example16(): Promise<void> {
  headerNumber(' 120 '); // 120
}

// src/retry.ts, parseRetryAfter
export async function example17(): Promise<void> {
  parseRetryAfter('3'); // 3
  parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:58 GMT')); // 2
  parseRetryAfter('soon'); // undefined
}

// src/retry.ts, sendOnce
export async function example18(): Promise<void> {
  const outcome = await sendOnce(ofetch, { url, method: 'POST', headers, body, timeoutMs: 10_000 });
}

// src/retry.ts, sendWithRetries
export async function example19(): Promise<void> {
  const { outcome, attempts } = await sendWithRetries(() => sendOnce(fetcher, request), policy);
}

// src/validate.ts, validateBody
export async function example20(): Promise<void> {
  validateBody(NewPlant, { id: 1, name: '' });
  // { ok: false, message: 'name: must not be empty', issues: [ … ] }
}

// src/validate.ts, validateNewPlant
export async function example21(): Promise<void> {
  validateNewPlant({ id: 2n ** 63n - 1n, name: 'Fern' }); // { ok: true, value: { id: 9223372036854775807n, name: 'Fern' } }
  validateNewPlant({ id: 1, name: 'Fern', wheels: 4 }); // { ok: false, message: 'wheels: unknown property' }
}
