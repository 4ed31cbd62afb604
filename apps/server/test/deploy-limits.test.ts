import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/config.ts';

// The shipped proxies enforce the server's default BODY_LIMIT on POST /plants before an instance
// sees a byte: a default changed in config.ts must change there too.

const repoFile = (path: string) =>
  readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** nginx's size syntax (`64k`, `1m`, bytes) in bytes. */
function nginxBytes(size: string): number {
  const match = /^(\d+)([kKmM]?)$/.exec(size);
  if (!match) throw new Error(`not an nginx size: ${size}`);
  const unit = { '': 1, k: 1024, m: 1024 * 1024 }[(match[2] ?? '').toLowerCase()] ?? 1;
  return Number(match[1]) * unit;
}

describe("the shipped proxies' body limit on POST /plants", () => {
  const limit = DEFAULTS.bodyLimitBytes;

  it('deploy/nginx.conf: client_max_body_size in `location = /plants` is BODY_LIMIT', () => {
    const block = /location = \/plants \{([^}]*)\}/.exec(repoFile('deploy/nginx.conf'))?.[1];
    const size = /client_max_body_size\s+(\S+);/.exec(block ?? '')?.[1] ?? '';
    expect(
      nginxBytes(size),
      `deploy/nginx.conf: set client_max_body_size in "location = /plants" to ${limit} bytes (config.ts's BODY_LIMIT default)`,
    ).toBe(limit);
  });

  it('deploy/haproxy.cfg: every size rule of /plants is BODY_LIMIT', () => {
    const rules = repoFile('deploy/haproxy.cfg')
      .split('\n')
      .filter((line) =>
        /too_large if \{ req\.(hdr_val\(content-length\)|body_size) gt \d+ \}$/.test(line),
      );
    expect(rules).toHaveLength(2);
    for (const rule of rules) {
      expect(
        Number(/gt (\d+) \}$/.exec(rule)?.[1]),
        `deploy/haproxy.cfg: "${rule.trim()}" must compare with ${limit} (config.ts's BODY_LIMIT default)`,
      ).toBe(limit);
    }
  });
});
