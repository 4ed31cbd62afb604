import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAN_MOUNT, mountSmallFilesystem } from '../support/small-filesystem.ts';

// The default logger (pino.destination on stdout, observability/logger.ts) in a real child
// process: what actually reached its stdout.

const LOGGER_URL = new URL('../../src/observability/logger.ts', import.meta.url).href;
const METRICS_URL = new URL('../../src/observability/metrics.ts', import.meta.url).href;

/** Starts a child running `body` (ES module code with `createLogger` in scope); its stdout lines. */
function startWithLogger(body: string): { child: ChildProcess; lines: string[] } {
  const code = `import { createLogger, exitAfterLogs } from ${JSON.stringify(LOGGER_URL)};\n${body}`;
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
  it('writes every waiting line when the process exits through exitAfterLogs', async () => {
    const { child, lines } = startWithLogger(`
      const logger = createLogger('info');
      for (let i = 0; i < 2000; i++) logger.info({ i }, 'request');
      await exitAfterLogs(logger, 0);
    `);
    const [code] = (await once(child, 'close')) as [number];
    expect(code).toBe(0);
    expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(
      Array.from({ length: 2000 }, (_, i) => i),
    );
  });

  it('writes out the lone line of a quiet process while it keeps running', async () => {
    // One line, far below the 8 KiB buffer, then the process idles until it is told to stop:
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

describe.skipIf(!CAN_MOUNT)('createLogger on a stdout file whose disk fills, then frees', () => {
  it('stops with one stderr line, counts the dropped lines, resumes with one stderr line', async () => {
    // Room for the 8 MiB of lines that wait once it frees.
    const disk = mountSmallFilesystem(24 * 1024 * 1024);
    const file = join(disk.dir, 'stdout.log');
    const out = openSync(file, 'w');
    // Commands on stdin: `log <count> <padding>` logs lines numbered on; `metric` answers the
    // dropped-lines counter on stderr, as /metrics shows it.
    const code = `import { createLogger } from ${JSON.stringify(LOGGER_URL)};
      import { ServiceMetrics } from ${JSON.stringify(METRICS_URL)};
      import { createInterface } from 'node:readline';
      const logger = createLogger('info');
      const metrics = new ServiceMetrics();
      let i = 0;
      for await (const command of createInterface({ input: process.stdin })) {
        const [name, count, padding] = command.split(' ');
        if (name === 'log') for (let n = 0; n < Number(count); n++) logger.info({ i: i++, pad: 'x'.repeat(Number(padding)) }, 'request');
        if (name === 'metric') {
          const body = await metrics.registry.metrics();
          process.stderr.write(body.split('\\n').find((line) => line.startsWith('plant_store_log_lines_dropped_total ')) + '\\n');
        }
      }`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      stdio: ['pipe', out, 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const send = (command: string) => child.stdin?.write(`${command}\n`);
    /** The numbers of the whole lines in the file. */
    const written = () =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line) => {
          try {
            return [(JSON.parse(line) as { i: number }).i];
          } catch {
            return []; // the line the full disk cut
          }
        });
    const wait = { timeout: 30_000 }; // until it happens: a start-up and flushes on a busy machine
    try {
      send('log 10 10');
      await expect.poll(() => written().length, wait).toBe(10);
      const filler = disk.fill(0);
      send('log 2000 5000'); // 10 MB: more than the 8 MiB that wait for stdout
      await expect.poll(() => stderr, wait).toMatch(/stdout failed \(ENOSPC\)/);
      send('metric');
      await expect.poll(() => stderr, wait).toMatch(/plant_store_log_lines_dropped_total \d+/);
      const dropped = Number(/plant_store_log_lines_dropped_total (\d+)/.exec(stderr)?.[1]);
      expect(dropped).toBeGreaterThan(0);
      rmSync(filler);
      send('log 10 10');
      await expect.poll(() => written().includes(2019), wait).toBe(true);
      expect(stderr.match(/stdout failed/g)).toHaveLength(1);
      expect(stderr.match(/stdout writes again/g)).toHaveLength(1);
      // Every line is in the file or counted as dropped (one more may be cut where the disk filled).
      expect(new Set(written()).size + dropped).toBeGreaterThanOrEqual(2019);
    } finally {
      child.kill('SIGKILL');
      closeSync(out);
      disk.unmount();
    }
  }, 60_000);
});
