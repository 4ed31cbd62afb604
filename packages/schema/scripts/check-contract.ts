import { fileURLToPath } from 'node:url';
import { checkContractCompatibility } from './contract-compat.ts';

// `pnpm contract:check`: fails when openapi.json (or the file given) breaks the released
// contract kept in contract-snapshots/.
const file = process.argv[2] ?? fileURLToPath(new URL('../openapi.json', import.meta.url));
const report = await checkContractCompatibility(file);
if (report.ok) {
  const { major = 0, minor = 0, patch = 0 } = report.summary ?? {};
  const accepted = report.accepted?.length ?? 0;
  console.log(
    `contract ${report.version}: no breaking change against ${report.baseline} ` +
      `(${major} major, of them ${accepted} accepted in accepted-changes.json; ${minor} minor, ${patch} patch)`,
  );
} else {
  console.error(report.problems.join('\n'));
  process.exitCode = 1;
}
