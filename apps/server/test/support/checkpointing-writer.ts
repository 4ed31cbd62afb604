import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

// A child process for the checkpoint crash test (`test/e2e/wal-checkpointer-crash.test.ts`):
// creates plants on the SQLite file named by argv[2] with background checkpoints that start the
// WAL over every few dozen frames, from 16 concurrent loops, until it is killed. Each create
// that resolved (committed) is printed as `ack <id>` before the next one starts; `restarts <n>`
// reports the WAL restarts so far. Writes to a pipe are synchronous on Linux, so a printed line
// left the process before anything after it happened.

const filename = process.argv[2];
if (filename === undefined) throw new Error('usage: checkpointing-writer.ts <file>');
const store = createSqliteStore({
  filename,
  checkpoints: 'background',
  walRestartFrames: 64,
  checkpointIntervalMs: 2,
});
let next = 0;
let reported = 0;
const loop = async (): Promise<never> => {
  for (;;) {
    const n = next++;
    await store.create({ id: BigInt(n) * 7919n + 1n, name: `plant ${n}` });
    process.stdout.write(`ack ${n}\n`);
    const restarts = store.checkpointStats()?.restarts ?? 0;
    if (restarts > reported) {
      reported = restarts;
      process.stdout.write(`restarts ${restarts}\n`);
    }
  }
};
await Promise.all(Array.from({ length: 16 }, loop));
