import type * as z from 'zod/mini';

function pathOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(body)' : path.map(String).join('.');
}

/**
 * One line per problem, each led by its field path, joined with "; ".
 *
 * @example
 * formatIssues(NewPlant.safeParse({}).error!.issues);
 * // 'id: must be an integer from … (got undefined); name: Invalid input: expected string, received undefined'
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
