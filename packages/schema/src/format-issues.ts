import type * as z from 'zod/mini';

function pathOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(body)' : path.map(String).join('.');
}

/**
 * One line per problem, each led by its field path, joined with "; ".
 *
 * @example
 * formatIssues(NewPlant.safeParse({}).error!.issues);
 * // 'id: is required; name: is required'
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${pathOf([...issue.path, key])}: unknown property`)
        : [`${pathOf(issue.path)}: ${issue.message}`],
    )
    .join('; ');
}
