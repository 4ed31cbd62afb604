import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { HAPROXY, NGINX, shippedConfig } from './proxy-process.ts';

// The deploy files check as shipped with Debian 12's packages: nginx.conf exactly as it is in
// the repository (a whole nginx.conf, run with `nginx -c`), haproxy.cfg with its lua-load
// pointed at the file beside it (installed together in /etc/haproxy/).

const run = promisify(execFile);
const NGINX_CONF = fileURLToPath(new URL('../../../../deploy/nginx.conf', import.meta.url));

describe('the shipped proxy files', () => {
  it('nginx -t -c deploy/nginx.conf passes, the file unchanged', async () => {
    const { stderr } = await run(NGINX, ['-t', '-c', NGINX_CONF]);
    expect(stderr).toMatch(/configuration file .*nginx\.conf test is successful/);
  });

  it('haproxy -c passes on haproxy.cfg', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-haproxy-check-'));
    try {
      const file = join(folder, 'haproxy.cfg');
      writeFileSync(file, shippedConfig('haproxy', 80, [3001, 3002]));
      const { stdout } = await run(HAPROXY, ['-c', '-f', file]);
      expect(stdout).toMatch(/Configuration file is valid/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
