import { contract, ERROR_MESSAGES, type NewPlant, type Plant, toPlant } from '@plant-store/schema';
import { REFERENCE_TITLE, renderReferencePage } from './docs/reference-page.ts';
import { loadRendererScript } from './docs/renderer-script.ts';
import { versionedScriptUrl } from './docs/script-caching.ts';
import { ApiError } from './http/api-error.ts';
import type { ContractHandlers } from './http/contract-router.ts';
import { STORE_RETRY_AFTER_SECONDS } from './http/to-api-error.ts';
import type { PlantStore } from './store/plant-store.ts';

/**
 * Creates the plant unless its id is taken. An identical replay answers the same Plant (so a
 * client may retry safely); the same id with another name or tag is a 409.
 */
export async function createPlant(store: PlantStore, newPlant: NewPlant): Promise<Plant> {
  if ((await store.create(newPlant)) === 'conflict') {
    throw new ApiError('conflict', ERROR_MESSAGES.conflict(BigInt(newPlant.id)));
  }
  return toPlant(newPlant);
}

/** The handler of every contract route, bound to the store and the published document. */
export function contractHandlers(store: PlantStore, openApiDocument: object): ContractHandlers {
  let referencePage: string | undefined;
  return {
    createPlant: (body) => createPlant(store, body),
    getHealth: async () => ({ status: 'ok' }),
    // Ready means able to commit (the one operation is a write), not merely reachable.
    getReadiness: async () => {
      const readiness = store.readiness();
      if (!readiness.ready) {
        throw new ApiError(
          'storeUnavailable',
          ERROR_MESSAGES.storeUnavailable.notReady(readiness.cause.code),
          { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
        );
      }
      await store.ping();
      return { status: 'ok' };
    },
    getOpenApiDocument: async () => openApiDocument as Record<string, unknown>,
    getDocs: async () => {
      referencePage ??= renderReferencePage({
        document: openApiDocument,
        scriptUrl: versionedScriptUrl(),
        documentUrl: contract.getOpenApiDocument.path,
        title: REFERENCE_TITLE,
      });
      return referencePage;
    },
    getDocsScript: async () => loadRendererScript().text,
  };
}
