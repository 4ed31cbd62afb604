// A bulk import through the client against a running server, as an internal app does it:
// COUNT creates with IN_FLIGHT at once, paced by the client on the server's rate-limit
// headers. Prints the time taken and the errors.
//
//   PLANT_STORE_URL=http://127.0.0.1:3000 PLANT_STORE_TOKEN=… COUNT=10000 IN_FLIGHT=8 \
//     npx tsx packages/client/scripts/paced-import.ts
import { createPlantStoreClient } from '../src/client.ts';
import { Pacer } from '../src/pacer.ts';

const url = process.env.PLANT_STORE_URL ?? 'http://127.0.0.1:3000';
const token = process.env.PLANT_STORE_TOKEN ?? '';
const count = Number(process.env.COUNT ?? 10_000);
const inFlight = Number(process.env.IN_FLIGHT ?? 8);
const firstId = Number(process.env.FIRST_ID ?? 1);
const pace = process.env.PACE !== 'false';

const client = createPlantStoreClient({
  baseUrl: url,
  token,
  ...(pace ? { pacer: new Pacer() } : {}),
});
const errors = new Map<string, number>();
let next = 0;
let done = 0;
const began = performance.now();
const worker = async () => {
  while (next < count) {
    const id = firstId + next++;
    try {
      await client.createPlant({ id, name: `import ${id}` });
      done += 1;
    } catch (error) {
      const key = error instanceof Error ? error.message.replace(/\d+/g, 'N') : String(error);
      errors.set(key, (errors.get(key) ?? 0) + 1);
    }
  }
};
const progress = setInterval(() => {
  const seconds = (performance.now() - began) / 1000;
  console.log(`${seconds.toFixed(0)} s: ${done} created, ${count - next} to go`);
}, 10_000);
await Promise.all(Array.from({ length: inFlight }, worker));
clearInterval(progress);
const seconds = (performance.now() - began) / 1000;
const failed = [...errors.values()].reduce((a, b) => a + b, 0);
console.log(
  `${count} creates (${inFlight} in flight, pacing ${pace ? 'on' : 'off'}): ${done} created, ` +
    `${failed} errors in ${seconds.toFixed(1)} s (${(done / seconds).toFixed(1)}/s)`,
);
for (const [message, n] of errors) console.log(`  ${n} × ${message}`);
