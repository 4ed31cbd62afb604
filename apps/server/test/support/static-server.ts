import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
};

/** A static file server for a folder, on 127.0.0.1. */
export interface StaticServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the files of `folder` on 127.0.0.1 and a free port, as a plain static host would
 * (`/` is `index.html`; GET only; nothing outside the folder): how the static API reference
 * is published.
 *
 * @example
 * const site = await serveFolder('apps/server/dist-docs');
 * await fetch(`${site.url}/openapi.json`);
 * await site.close();
 */
export async function serveFolder(folder: string): Promise<StaticServer> {
  const root = normalize(folder + sep);
  const server = createServer(async (request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const file = normalize(join(root, pathname.endsWith('/') ? `${pathname}index.html` : pathname));
    if (request.method !== 'GET' || !file.startsWith(root)) {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      response.writeHead(200, {
        'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
