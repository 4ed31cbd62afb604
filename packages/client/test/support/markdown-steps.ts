/** One step of a documented walkthrough: a shell block to run, or a file to save. */
export type Step =
  | { readonly kind: 'run'; readonly script: string }
  | { readonly kind: 'save'; readonly file: string; readonly text: string };

/**
 * The steps between `<!-- <marker>:start -->` and `<!-- <marker>:end -->` of a Markdown text,
 * in order: a ```sh block is run, a block after "Save as `name`:" is saved under that name.
 *
 * @example
 * markdownSteps(readme, 'consumer-steps'); // [{ kind: 'run', script: 'pnpm pack …' }, …]
 */
export function markdownSteps(markdown: string, marker: string): Step[] {
  const section = new RegExp(`<!-- ${marker}:start -->\\n([\\s\\S]*?)<!-- ${marker}:end -->`).exec(
    markdown,
  )?.[1];
  if (section === undefined) throw new Error(`no ${marker} section`);
  const steps: Step[] = [];
  let prose = 0;
  for (const fence of section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
    const before = section.slice(prose, fence.index);
    prose = fence.index + fence[0].length;
    const file = /Save as `([^`]+)`:\s*$/.exec(before)?.[1];
    const text = fence[2] ?? '';
    if (file !== undefined) steps.push({ kind: 'save', file, text });
    else if (fence[1] === 'sh') steps.push({ kind: 'run', script: text });
    else throw new Error(`a ${fence[1]} block that is neither run nor saved:\n${text}`);
  }
  return steps;
}
