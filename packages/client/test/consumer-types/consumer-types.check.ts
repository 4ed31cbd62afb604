/**
 * Type-level test, checked by the client's `tsc` (typecheck): the types an outside consumer
 * generates from the published document with openapi-typescript fit the client's public
 * types. Nothing here runs; a mismatch is a compile error.
 */
import type { PlantStoreClient } from '../../src/index.ts';
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

/** The document's types are the strict ones the specification describes, not `any`. */
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
