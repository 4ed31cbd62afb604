import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The release rule (docs/architecture.md, "Releases"): a change to a published package merges
// with its version bump and CHANGELOG entry (`pnpm changeset`, then `pnpm version-packages`),
// so whatever is packed from main says what it holds. No changeset waits on main.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PUBLISHED = ['packages/schema', 'packages/client'];

/** The changesets not yet turned into versions: `.changeset/*.md` but its README. */
function pendingChangesets(folder: string): string[] {
  return readdirSync(folder)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .sort();
}

/** The version of the newest entry of a Changesets CHANGELOG (its first `## x.y.z`). */
function newestChangelogVersion(changelog: string): string | undefined {
  return /^## (\S+)$/m.exec(changelog)?.[1];
}

describe('the release state of main', () => {
  it('holds no pending changeset (run `pnpm version-packages` and commit before merging)', () => {
    expect(pendingChangesets(join(ROOT, '.changeset'))).toEqual([]);
  });

  it.each(PUBLISHED)('%s: the version in package.json is the newest CHANGELOG entry', (dir) => {
    const { version } = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
    const changelog = readFileSync(join(ROOT, dir, 'CHANGELOG.md'), 'utf8');
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(newestChangelogVersion(changelog)).toBe(version);
  });

  it('reads a CHANGELOG as Changesets writes it: the newest entry first', () => {
    expect(newestChangelogVersion('# @x/y\n\n## 1.2.0\n\n- a\n\n## 1.1.0\n')).toBe('1.2.0');
    expect(newestChangelogVersion('# @x/y\n')).toBeUndefined();
  });
});
