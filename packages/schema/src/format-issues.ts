import type * as z from 'zod/mini';
import { shortened } from './shortened.ts';

/** At most this many problems are listed; the message then says how many more there are. */
export const LISTED_PROBLEMS = 5;
/** Up to this many unknown keys are listed one by one; more are summed up in one line. */
const KEYS_ONE_BY_ONE = 3;
/** How many unknown keys that line names before its count. */
const NAMED_KEYS = 2;

const count = (n: number) => n.toLocaleString('en-US');

function pathOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(body)' : path.map((key) => shortened(String(key))).join('.');
}

/**
 * The lines that name the unknown `keys` of the object at `path`: one per key up to three, else
 * one that names two and counts the rest (each key `shortened`).
 *
 * @example
 * unknownKeys([], ['wheels']); // ['wheels: unknown property']
 */
export function unknownKeys(path: readonly PropertyKey[], keys: readonly string[]): string[] {
  if (keys.length <= KEYS_ONE_BY_ONE) {
    return keys.map((key) => `${pathOf([...path, key])}: unknown property`);
  }
  const named = keys.slice(0, NAMED_KEYS).map((key) => `\`${pathOf([...path, key])}\``);
  return [`${named.join(', ')} and ${count(keys.length - NAMED_KEYS)} more: unknown properties`];
}

/**
 * One line per problem, each led by its field path, joined with "; " (a field of the wrong type:
 * only that). The message stays short
 * whatever the input: at most {@link LISTED_PROBLEMS} lines, then how many more problems there
 * are; more than three unknown keys make one line that names two and counts the rest; a key or
 * path is quoted `shortened`.
 *
 * @example
 * formatIssues(NewPlant.safeParse({}).error!.issues);
 * // 'id: is required; name: is required'
 * formatIssues(NewPlant.safeParse({ id: 1, name: 'x', wheels: 1, wings: 2, a: 3, b: 4 }).error!.issues);
 * // '`wheels`, `wings` and 2 more: unknown properties'
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const lines: string[] = [];
  let total = 0;
  // A value of the wrong type gets that one line: zod may still run a field's checks on it
  // (`must not be empty` on an array), which says nothing more and differs with its content.
  const wrongType = new Set<string>();
  for (const issue of issues) {
    const path = issue.path.map(String).join('\u0000');
    if (wrongType.has(path)) continue;
    if (issue.code === 'invalid_type') wrongType.add(path);
    const own =
      issue.code === 'unrecognized_keys' ? unknownKeys(issue.path, issue.keys) : undefined;
    total += own?.length ?? 1;
    if (lines.length >= LISTED_PROBLEMS) continue;
    lines.push(...(own ?? [`${pathOf(issue.path)}: ${issue.message}`]));
  }
  if (total <= LISTED_PROBLEMS) return lines.join('; ');
  const listed = lines.slice(0, LISTED_PROBLEMS);
  return `${listed.join('; ')}; and ${count(total - listed.length)} more problems`;
}
