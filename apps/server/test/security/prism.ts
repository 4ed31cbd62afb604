import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { watchChild } from '../support/child-output.ts';
import { freePort } from '../support/free-port.ts';

const require = createRequire(import.meta.url);
/** The prism CLI of @stoplight/prism-cli (5.14.2: the last release that runs on Node 20). */
const PRISM_CLI = require.resolve('@stoplight/prism-cli/dist/index.js');
/** The committed, generated OpenAPI document. */
export const OPENAPI_DOCUMENT = require.resolve('@plant-store/schema/openapi.json');

/** A running `prism proxy`. */
export interface PrismProxy {
  /** Where to send requests, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Everything prism logged so far. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts `prism proxy <openapi.json> <upstream>` on 127.0.0.1 with the Node running the tests,
 * and resolves once it listens. `args` are extra flags: `--errors` (a response that violates
 * the document becomes a 500 problem), `--validate-request=false` (forward every request).
 *
 * @example
 * const prism = await startPrismProxy(server.url, ['--errors']);
 * await fetch(`${prism.url}/healthz`);
 * await prism.stop();
 */
export async function startPrismProxy(
  upstream: string,
  args: readonly string[] = [],
  timeoutMs = 90_000,
): Promise<PrismProxy> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      PRISM_CLI,
      'proxy',
      OPENAPI_DOCUMENT,
      upstream,
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } },
  );
  const { output, exited, stop } = watchChild(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`prism did not start within ${timeoutMs} ms: ${output()}`));
    }, timeoutMs);
    const check = () => {
      if (output().includes('Prism is listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${child.exitCode ?? child.signalCode}): ${output()}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, log: output, stop };
}
