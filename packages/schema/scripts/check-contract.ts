import { checkContractCompatibility, checkContractDocument } from './contract-compat.ts';

// `pnpm contract:check`: fails when the document the code generates now breaks the released
// contract kept in contract-snapshots/ (no `pnpm openapi` needed first). Given a file
// (`pnpm contract:check path/to/openapi.json`), checks that file instead.
const file = process.argv[2];
const report = file ? await checkContractCompatibility(file) : await checkContractDocument();
if (report.ok) {
  const { major = 0, minor = 0, patch = 0 } = report.summary ?? {};
  const accepted = report.accepted?.length ?? 0;
  console.log(
    `contract ${report.version} (${file ?? 'generated from the code'}): no breaking change ` +
      `against ${report.baseline} (${major} major, of them ${accepted} accepted in ` +
      `accepted-changes.json; ${minor} minor, ${patch} patch)`,
  );
} else {
  console.error(report.problems.join('\n'));
  process.exitCode = 1;
}
