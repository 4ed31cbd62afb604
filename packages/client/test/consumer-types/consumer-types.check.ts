/**
 * Type-level test, checked by the client's `tsc` (typecheck): the types an outside consumer
 * generates from the published document with openapi-typescript fit the client's public
 * types. Nothing here runs; a mismatch is a compile error.
 */
import type { NewPlantInput, Plant, PlantStoreClient } from '../../src/index.ts';
import type { components, paths } from './openapi-types.d.ts';

type DocumentNewPlant = components['schemas']['NewPlant'];
type DocumentPlant = components['schemas']['Plant'];
type CreatePlantBody = paths['/plants']['post']['requestBody']['content']['application/json'];
type CreatePlantOk = paths['/plants']['post']['responses'][200]['content']['application/json'];

/** A consumer's code: a NewPlant built from the document goes in, the document's Plant comes out. */
export async function consumerCreates(
  client: PlantStoreClient,
  newPlant: DocumentNewPlant,
  body: CreatePlantBody,
): Promise<[DocumentPlant, CreatePlantOk]> {
  const created: DocumentPlant = await client.createPlant(newPlant);
  const fromOperation: CreatePlantOk = await client.createPlant(body);
  return [created, fromOperation];
}

/** The document's types are strict (the contract's rules), not `any`. */
export function documentTypesAreStrict(client: PlantStoreClient): void {
  const withoutId = { name: 'Fern' };
  // @ts-expect-error the document's NewPlant requires `id`
  const newPlant: DocumentNewPlant = withoutId;
  // @ts-expect-error and so does the client: a NewPlant without `id` is refused at compile time
  void client.createPlant(withoutId);
  // @ts-expect-error the document's Plant requires `name`
  const plant: DocumentPlant = { tag: 'indoor' };
  void [newPlant, plant];
}

/**
 * The client's own input type: what `createPlant` takes, `id` as a safe-integer `number` or a
 * `bigint` (the schema's `NewPlant` is the validated output, `id` always a `bigint`).
 */
export async function consumerTypesFromTheClient(client: PlantStoreClient): Promise<Plant[]> {
  const small: NewPlantInput = { id: 101, name: 'Fern' };
  const large: NewPlantInput = { id: 2n ** 63n - 1n, name: 'Monstera', tag: 'indoor' };
  // @ts-expect-error an id is a number or a bigint, never a string
  const text: NewPlantInput = { id: '101', name: 'Fern' };
  // @ts-expect-error NewPlantInput is strict: an unknown property is refused at compile time
  const extra: NewPlantInput = { id: 1, name: 'Fern', wheels: 4 };
  void [text, extra];
  return [await client.createPlant(small), await client.createPlant(large)];
}
