// The browser entry: bundled with esbuild for the page; the test calls window.runChecks.
import { createPlantStoreClient, PlantStoreError } from '@plant-store/client';

window.runChecks = async (baseUrl, token) => {
  const client = createPlantStoreClient({ baseUrl, token });
  const created = await client.createPlant({ id: 2n ** 53n + 1n, name: 'Cactus', tag: 'desert' });
  try {
    await client.createPlant({ id: 2n ** 53n + 1n, name: 'Agave' });
    return { created, conflict: 'no error' };
  } catch (error) {
    return {
      created,
      conflict: {
        isPlantStoreError: error instanceof PlantStoreError,
        name: error.name,
        status: error.status,
        code: error.code,
      },
    };
  }
};
