import { readFileSync } from 'node:fs';

// Prints where a sampling heap profile (bench/heap-sampling.ts) allocated: the functions with
// the most bytes allocated in them (self), as a share of the total, and per request when the
// number of requests is given.
//   node --import tsx bench/heap-summary.ts /tmp/heap/heap-123.heapprofile [requests] [top]
interface HeapNode {
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly HeapNode[];
}

const [file, requestsText, topText] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: heap-summary.ts FILE [requests] [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
const requests = Number(requestsText ?? 0);
const bySite = new Map<string, number>();
let total = 0;
const visit = (node: HeapNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '');
  const site = `${functionName || '(anonymous)'} ${where.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const child of node.children) visit(child);
};
visit(profile.head);
const rows = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(topText ?? 40));
process.stdout.write(`total ${(total / 1048576).toFixed(1)} MiB sampled\n`);
for (const [site, bytes] of rows) {
  const perRequest = requests > 0 ? `  ${(bytes / requests).toFixed(0).padStart(6)} B/req` : '';
  process.stdout.write(
    `${((100 * bytes) / total).toFixed(1).padStart(5)} %${perRequest}  ${site}\n`,
  );
}
