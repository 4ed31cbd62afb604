import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

// A child process for `test/e2e/sqlite-multi-process-wal.test.ts`: one of several ordinary
// processes (as two instances on one file are) that commit on one SQLite file, `creates`
// plants from 16 concurrent loops. Ids are `n * processes + index`, so the processes never
// collide. At the end it prints `done <creates>` and closes the store.

const [filename, index, processes, creates] = process.argv.slice(2);
if (filename === undefined || creates === undefined) {
  throw new Error('usage: wal-sharing-writer.ts <file> <index> <processes> <creates>');
}
const store = createSqliteStore({ filename });
let next = 0;
const loop = async () => {
  while (next < Number(creates)) {
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
