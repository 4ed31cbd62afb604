import { readFileSync } from 'node:fs';
import { ERROR_ENTRIES } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../src/config.ts';

// The README's tables are documentation users rely on: they must not drift from the code.
const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

function section(name: string): string {
  const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(
    README,
  );
  if (!match?.[1]) throw new Error(`README has no ${name} section`);
  return match[1];
}

describe('README', () => {
  it('lists exactly the error catalog, in code order', () => {
    const rows = section('error-table')
      .split('\n')
      .filter((line) => /^\| \d/.test(line));
    expect(rows).toEqual(
      ERROR_ENTRIES.map((entry) => `| ${entry.code} | ${entry.status} | ${entry.meaning} |`),
    );
  });

  it('documents every configuration variable, and no other', () => {
    const documented = [...section('config-table').matchAll(/^\| `([A-Z_]+)` \|/gm)].map(
      (match) => match[1],
    );
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('gives the test command that .ci/run runs', () => {
    const ci = readFileSync(new URL('../../../.ci/run', import.meta.url), 'utf8');
    const command = 'npx -y pnpm@10.34.9 install --frozen-lockfile && npx -y pnpm@10.34.9 test';
    expect(README).toContain(command);
    expect(ci.split('\n')).toContain(command);
  });
});
