import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

// The default logger gathers stdout lines (100 ms, then pino.destination, 4 KiB; observability/logger.ts): these run it in a real
// child process and read what actually reached its stdout.

const LOGGER_URL = new URL('../../src/observability/logger.ts', import.meta.url).href;

/** Starts a child running `body` (ES module code with `createLogger` in scope); its stdout lines. */
function startWithLogger(body: string): { child: ChildProcess; lines: string[] } {
  const code = `import { createLogger } from ${JSON.stringify(LOGGER_URL)};\n${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
    child.emit('lines');
  });
  return { child, lines };
}

describe('createLogger on stdout', () => {
  it('writes every buffered line when the process exits through process.exit', async () => {
    const { child, lines } = startWithLogger(`
      const logger = createLogger('info');
      for (let i = 0; i < 2000; i++) logger.info({ i }, 'request');
      process.exit(0);
    `);
    const [code] = (await once(child, 'close')) as [number];
    expect(code).toBe(0);
    expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(
      Array.from({ length: 2000 }, (_, i) => i),
    );
  });

  it('writes out the lone line of a quiet process while it keeps running', async () => {
    // One line, far below the 4 KiB buffer, then the process idles until it is told to stop:
    // only the flush timer can have written the line the parent reads.
    const { child, lines } = startWithLogger(`
      const logger = createLogger('info');
      logger.info('alone');
      setInterval(() => {}, 1000);
    `);
    try {
      while (lines.length === 0) await once(child, 'lines');
      expect(child.exitCode).toBeNull();
      expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 30, msg: 'alone' });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
