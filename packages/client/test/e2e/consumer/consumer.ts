// A consumer's TypeScript, checked with `tsc --noEmit` (nodenext, then bundler). Every
// expected-error directive below must meet an error: were the types `any`, tsc would fail on it (TS2578).
import {
  createPlantStoreClient,
  type NewPlantInput,
  type Plant,
  type PlantStoreClient,
  PlantStoreError,
  PlantStoreValidationError,
} from '@plant-store/client';
import { parseJson } from '@plant-store/schema';

const client: PlantStoreClient = createPlantStoreClient({
  baseUrl: 'http://127.0.0.1:3000',
  token: 'consumer-token-0123456789',
});

export async function create(newPlant: NewPlantInput): Promise<Plant> {
  try {
    return await client.createPlant(newPlant);
  } catch (error) {
    if (error instanceof PlantStoreError && error.code === 40901) throw new Error('taken');
    if (error instanceof PlantStoreValidationError) throw new Error(error.message);
    throw error;
  }
}

export const max: Promise<Plant> = create({ id: 2n ** 63n - 1n, name: 'Monstera' });
export const small: Promise<Plant> = create({ id: 101, name: 'Fern' });
export const parsed: unknown = parseJson('{"id": 9223372036854775807}');

// @ts-expect-error an unknown field is refused at compile time
export const unknownField = client.createPlant({ id: 1, name: 'Fern', wheels: 4 });
// @ts-expect-error an id is a number or a bigint, never a string
export const stringId = client.createPlant({ id: '1', name: 'Fern' });
export async function plantId(): Promise<unknown> {
  const plant = await max;
  // @ts-expect-error a Plant has no id
  return plant.id;
}
