import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('passes `redocly lint` with the repository rules and no warnings', async () => {
  const { stdout, stderr } = await run(
    'npx',
    ['redocly', 'lint', 'openapi.json', '--config', '../../redocly.yaml', '--format', 'summary'],
    { cwd: PACKAGE_ROOT, env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' } },
  );
  const output = stdout + stderr;
  expect(output).toContain('Your API description is valid');
  expect(output).not.toMatch(/You have \d+ warning|^(warning|error) /m);
}, 60_000);
