// A consumer's ES module, run with plain `node`: every outcome is printed as one JSON line.
import {
  createPlantStoreClient,
  PlantStoreError,
  PlantStoreValidationError,
} from '@plant-store/client';

const [baseUrl, token] = process.argv.slice(2);
let requests = 0;
const countingFetch = (input, init) => {
  requests += 1;
  return fetch(input, init);
};
const client = createPlantStoreClient({ baseUrl, token, fetch: countingFetch });
const id = 2n ** 63n - 1n;

const created = await client.createPlant({ id, name: 'Monstera', tag: 'indoor' });
const replayed = await client.createPlant({ id, name: 'Monstera', tag: 'indoor' });
let conflict;
try {
  await client.createPlant({ id, name: 'Fern' });
} catch (error) {
  conflict = {
    isPlantStoreError: error instanceof PlantStoreError,
    status: error.status,
    code: error.code,
    message: error.message,
  };
}
const before = requests;
let invalid;
try {
  await client.createPlant({ id: 1, name: '', wheels: 4 });
} catch (error) {
  invalid = {
    isValidationError: error instanceof PlantStoreValidationError,
    isPlantStoreError: error instanceof PlantStoreError,
    message: error.message,
    requestsSent: requests - before,
  };
}
console.log(JSON.stringify({ created, replayed, conflict, invalid, requests }));
