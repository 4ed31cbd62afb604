import { parseArgs } from 'node:util';
import { z } from 'zod';

/** What `pnpm docs:build` writes, and for which API address. */
export interface DocsBuildConfig {
  /** The folder the static site is written to. */
  readonly folder: string | undefined;
  /** The public address of the API (no trailing slash), or undefined when none was given. */
  readonly serverUrl: string | undefined;
}

/** The API address a reference built without one points at: a server on this machine. */
export const LOCAL_SERVER_URL = 'http://127.0.0.1:3000';

const ServerUrl = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .refine((text) => URL.canParse(text), 'must be an absolute URL, e.g. https://api.example.com')
  .transform((text) => new URL(text))
  .refine(
    (url) => url.protocol === 'https:' || url.protocol === 'http:',
    'must be an http: or https: URL',
  )
  .refine((url) => url.search === '' && url.hash === '', 'must have no query or fragment')
  .refine((url) => url.username === '' && url.password === '', 'must hold no credentials')
  // `https://api.example.com/` and `…/v1/` are the same base as without the slash; paths are
  // appended to it (`/plants`), so the document holds it without one.
  .transform((url) => url.href.replace(/\/+$/, ''));

/** Thrown for a setting the docs build cannot use; the message names it. */
export class DocsBuildConfigError extends Error {
  override readonly name = 'DocsBuildConfigError';
}

/**
 * Reads the docs build's settings, validated here only: the API's public address from
 * `--server-url <url>` or else the `PUBLIC_API_URL` environment variable (the contract), and
 * the output folder as the one positional argument.
 *
 * @example
 * readDocsBuildConfig(['--server-url', 'https://api.example.com'], {});
 * // { folder: undefined, serverUrl: 'https://api.example.com' }
 */
export function readDocsBuildConfig(
  argv: readonly string[] = process.argv.slice(2),
  env: Readonly<Record<string, string | undefined>> = process.env,
): DocsBuildConfig {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    throw new DocsBuildConfigError(error instanceof Error ? error.message : String(error));
  }
  const flag = parsed.values['server-url'];
  const [source, raw] =
    flag !== undefined ? ['--server-url', flag] : ['PUBLIC_API_URL', env.PUBLIC_API_URL];
  // An empty PUBLIC_API_URL (e.g. `PUBLIC_API_URL= pnpm docs:build`) means "not set".
  const wanted = source === 'PUBLIC_API_URL' && raw?.trim() === '' ? undefined : raw;
  let serverUrl: string | undefined;
  if (wanted !== undefined) {
    const result = ServerUrl.safeParse(wanted);
    if (!result.success) {
      const message = result.error.issues.map((issue) => issue.message).join('; ');
      throw new DocsBuildConfigError(`${source}: ${message} (got ${JSON.stringify(wanted)})`);
    }
    serverUrl = result.data;
  }
  return { folder: parsed.positionals[0], serverUrl };
}

function parseFlags(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: { 'server-url': { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
}

/**
 * The document's `servers` for a static reference: the public address when one was given,
 * otherwise a server on this machine with the default HOST and PORT, saying so (a page opened
 * from disk must not resolve `/` to `file:/`).
 *
 * @example
 * referenceServers('https://api.example.com'); // [{ url: 'https://api.example.com', … }]
 */
export function referenceServers(serverUrl: string | undefined) {
  return serverUrl === undefined
    ? [
        {
          url: LOCAL_SERVER_URL,
          description:
            'A Plant Store server on this machine with the default HOST and PORT (this reference was built without PUBLIC_API_URL)',
        },
      ]
    : [{ url: serverUrl, description: 'The Plant Store API' }];
}
