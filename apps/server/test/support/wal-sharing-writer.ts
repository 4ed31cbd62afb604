import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

// A child process for `test/e2e/sqlite-multi-process-wal.test.ts`: one of several processes
// that commit on one SQLite file as the workers of a cluster do, from 16 concurrent loops for
// `seconds`. Ids are `n * processes + index`, so the processes never collide. At the end it
// prints `done <creates>` and closes the store.

const [filename, index, processes, seconds] = process.argv.slice(2);
if (filename === undefined || seconds === undefined) {
  throw new Error('usage: wal-sharing-writer.ts <file> <index> <processes> <seconds>');
}
const store = createSqliteStore({ filename });
let next = 0;
const end = Date.now() + Number(seconds) * 1000;
const loop = async () => {
  while (Date.now() < end) {
    const n = next++;
    await store.create({
      id: BigInt(n) * BigInt(processes ?? 1) + BigInt(index ?? 0),
      name: `plant ${n}`,
    });
  }
};
await Promise.all(Array.from({ length: 16 }, loop));
process.stdout.write(`done ${next}\n`);
await store.close();
