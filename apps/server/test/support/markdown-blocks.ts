/** A fenced code block of a Markdown file, with what the Markdown says about it. */
export interface CodeBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's info string (`sh`, `ts`, …; '' for none). */
  readonly lang: string;
  readonly code: string;
  /** The reason given in `<!-- illustrative: reason -->` just before the block, if any. */
  readonly illustrative?: string;
  /** Where it runs, from `<!-- cwd: repository -->` just before the block (else a scratch folder). */
  readonly cwd?: 'repository';
  /** The innermost `<!-- name:start -->` … `<!-- name:end -->` section holding the block. */
  readonly section?: string;
}

const ILLUSTRATIVE = /^<!-- illustrative: (.+) -->$/;
const CWD = /^<!-- cwd: repository -->$/;

/**
 * The fenced code blocks of `markdown`, in order. The HTML comments on the lines right before a
 * fence (blank lines between them allowed) mark it illustrative or set where it runs.
 *
 * @example
 * codeBlocks('<!-- illustrative: needs systemd -->\n```sh\nsystemctl start x\n```\n', 'README.md');
 * // [{ file: 'README.md', line: 2, lang: 'sh', code: 'systemctl start x\n', illustrative: 'needs systemd' }]
 */
export function codeBlocks(markdown: string, file: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  const sections: string[] = [];
  let comments: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const marker = /^<!-- ([\w-]+):(start|end) -->$/.exec(line);
    if (marker) {
      if (marker[2] === 'start') sections.push(marker[1] ?? '');
      else if (sections.pop() !== marker[1])
        throw new Error(`${file}:${index + 1}: unmatched ${line}`);
      continue;
    }
    if (/^<!--.*-->$/.test(line)) {
      comments.push(line);
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!fence) {
      if (line.trim() !== '') comments = [];
      continue;
    }
    const end = lines.findIndex((candidate, at) => at > index && candidate === '```');
    if (end === -1) throw new Error(`${file}:${index + 1}: a code block that never closes`);
    const illustrative = comments.map((comment) => ILLUSTRATIVE.exec(comment)?.[1]).find(Boolean);
    blocks.push({
      file,
      line: index + 1,
      lang: fence[1] ?? '',
      code: `${lines.slice(index + 1, end).join('\n')}\n`,
      ...(illustrative === undefined ? {} : { illustrative }),
      ...(comments.some((comment) => CWD.test(comment)) ? { cwd: 'repository' as const } : {}),
      ...(sections.length > 0 ? { section: sections[sections.length - 1] ?? '' } : {}),
    });
    comments = [];
    index = end;
  }
  if (sections.length > 0) throw new Error(`${file}: section ${sections.at(-1)} never ends`);
  return blocks;
}

/**
 * The output a block shows: the text after `# → ` (shell) or `// → ` (TypeScript, JavaScript)
 * on any of its lines, in order.
 */
export function shownOutput(code: string): string[] {
  return [...code.matchAll(/(?:^|\s)(?:#|\/\/) → (.*)$/gm)].map((match) => (match[1] ?? '').trim());
}

/** Whether `actual` is the line `shown`, where `…` in `shown` stands for any text. */
export function sameLine(shown: string, actual: string): boolean {
  const pattern = shown
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(actual.trim());
}

/**
 * The shown lines that `output` lacks: each shown line must match a line of the output, in
 * order (other lines may come between, e.g. a command whose output the docs do not show).
 */
export function missingOutput(shown: readonly string[], output: string): string[] {
  const lines = output.split('\n');
  let at = 0;
  const missing: string[] = [];
  for (const line of shown) {
    const found = lines.findIndex((actual, index) => index >= at && sameLine(line, actual));
    if (found === -1) missing.push(line);
    else at = found + 1;
  }
  return missing;
}
