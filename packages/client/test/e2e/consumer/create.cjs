// A consumer's CommonJS script: require() of the ESM-only client (require(esm), Node >= 20.19).
const { createPlantStoreClient, PlantStoreError } = require('@plant-store/client');

const [baseUrl, token] = process.argv.slice(2);
const client = createPlantStoreClient({ baseUrl, token });
client
  .createPlant({ id: 2n ** 62n, name: 'Ivy' })
  .then((plant) => {
    console.log(JSON.stringify({ plant, hasErrorClass: typeof PlantStoreError === 'function' }));
  })
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
