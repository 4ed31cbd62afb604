import { readFileSync } from 'node:fs';
import { ERROR_ENTRIES } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../src/config.ts';

// The documentation's tables are what users rely on: they must not drift from the code.
const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

function section(text: string, name: string): string {
  const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(text);
  if (!match?.[1]) throw new Error(`no ${name} section`);
  return match[1];
}

describe('the documentation', () => {
  it('lists exactly the error catalog, in code order (docs/api.md)', () => {
    const rows = section(read('docs/api.md'), 'error-table')
      .split('\n')
      .filter((line) => /^\| \d/.test(line));
    expect(rows).toEqual(
      ERROR_ENTRIES.map((entry) => `| ${entry.code} | ${entry.status} | ${entry.meaning} |`),
    );
  });

  it('documents every configuration variable, and no other (docs/operations.md)', () => {
    const table = section(read('docs/operations.md'), 'config-table');
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('gives, in the README, the test command that .ci/run runs', () => {
    const command = 'npx -y pnpm@10.34.9 install --frozen-lockfile && npx -y pnpm@10.34.9 test';
    expect(read('README.md')).toContain(command);
    expect(read('.ci/run').split('\n')).toContain(command);
  });
});
