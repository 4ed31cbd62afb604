import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

// Preloaded into a server (`node --import tsx --import ./bench/heap-sampling.ts dist/main.js`)
// by `gc-alloc.ts --heap-sample DIR`: samples every allocation, including the objects that
// died young (what a request leaves to the scavenger, which the default sampling profile
// omits), and writes `heap-<pid>.heapprofile` into HEAP_SAMPLING_DIR when the process exits.
// `bench/profile-summary.ts`-style reading: see `summarizeHeapProfile` in gc-alloc.ts.
const dir = process.env.HEAP_SAMPLING_DIR;
if (dir !== undefined) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: Number(process.env.HEAP_SAMPLING_INTERVAL ?? 4096),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // An in-thread inspector session answers synchronously, so this works in 'exit'.
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error === null) {
        writeFileSync(`${dir}/heap-${process.pid}.heapprofile`, JSON.stringify(result.profile));
      }
    });
  });
}
