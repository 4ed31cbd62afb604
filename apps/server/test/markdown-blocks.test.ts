import { describe, expect, it } from 'vitest';
import { codeBlocks, missingOutput, sameLine, shownOutput } from './support/markdown-blocks.ts';

// The extractor behind test/e2e/docs-commands.test.ts: what it finds, and that a wrong output
// or an unmarked block is caught.

const MARKDOWN = [
  '# Title',
  '',
  '<!-- illustrative: needs systemd -->',
  '```sh',
  'systemctl start plant-store',
  '```',
  '',
  '<!-- recipe:start -->',
  '```ts',
  'console.log(1); // → 1',
  '```',
  '<!-- recipe:end -->',
  '',
  '<!-- cwd: repository -->',
  '```sh',
  'ls',
  '```',
  'Some prose.',
  '',
  '```',
  'a map',
  '```',
  '',
].join('\n');

describe('codeBlocks', () => {
  it('finds each block with its language, line, marks and section', () => {
    expect(codeBlocks(MARKDOWN, 'x.md')).toEqual([
      {
        file: 'x.md',
        line: 4,
        lang: 'sh',
        code: 'systemctl start plant-store\n',
        illustrative: 'needs systemd',
      },
      { file: 'x.md', line: 9, lang: 'ts', code: 'console.log(1); // → 1\n', section: 'recipe' },
      { file: 'x.md', line: 15, lang: 'sh', code: 'ls\n', cwd: 'repository' },
      { file: 'x.md', line: 20, lang: '', code: 'a map\n' },
    ]);
  });

  it('refuses a block or a section that never ends', () => {
    expect(() => codeBlocks('```sh\nls\n', 'x.md')).toThrow(
      /x\.md:1: a code block that never closes/,
    );
    expect(() => codeBlocks('<!-- a:start -->\n', 'x.md')).toThrow(/section a never ends/);
  });

  it('takes a mark only from the comments right before the block', () => {
    const blocks = codeBlocks('<!-- illustrative: why -->\nprose\n```sh\nls\n```\n', 'x.md');
    expect(blocks[0]?.illustrative).toBeUndefined();
  });
});

describe('the output a block shows', () => {
  it('is read from # → and // → lines, in order', () => {
    expect(shownOutput('curl x\n# → {"a":1} 200\nf(); // → { a: 1 }\n# a comment\n')).toEqual([
      '{"a":1} 200',
      '{ a: 1 }',
    ]);
  });

  it('matches with … for any text, and fails on a line the output lacks', () => {
    expect(sameLine('Backed up … to b.db', 'Backed up /x/plants.db to b.db')).toBe(true);
    expect(sameLine('{"a":1} 200', '{"a":1} 201')).toBe(false);
    expect(missingOutput(['one', 'three'], 'one\ntwo\nthree\n')).toEqual([]);
    expect(missingOutput(['three', 'one'], 'one\ntwo\nthree\n')).toEqual(['one']);
    expect(missingOutput(['four'], 'one\n')).toEqual(['four']);
  });
});
