import type { contract as schemaContract } from '@plant-store/schema';
import type {
  createPlantCall as createPlantCallEntry,
  ErrorBody as ErrorBodySchema,
  NewPlant as NewPlantSchema,
} from '@plant-store/schema/shapes';
import type { $Fetch } from 'ofetch';
import type { PlantStoreClient } from '../../src/client.ts';
import type { ClientConfig } from '../../src/options.ts';
import type { AttemptOutcome, HttpRequest, ResponseOutcome, RetryPolicy } from '../../src/retry.ts';

// What the JSDoc examples of src/ take as given (a client, a response, the contract, …),
// declared only: jsdoc-examples.check.ts imports them, `tsc` checks it, nothing runs it.

export declare const client: PlantStoreClient;
export declare const baseUrl: string;
export declare const token: string;
export declare const url: string;
export declare const config: ClientConfig;
export declare const settings: ClientConfig;
export declare const policy: RetryPolicy;
export declare const response: ResponseOutcome;
export declare const send: () => Promise<AttemptOutcome>;
export declare const fetcher: $Fetch;
export declare const ofetch: $Fetch;
export declare const request: HttpRequest;
export declare const headers: Record<string, string>;
export declare const body: string;
export declare const error: unknown;
export declare const contract: typeof schemaContract;
export declare const ErrorBody: typeof ErrorBodySchema;
export declare const NewPlant: typeof NewPlantSchema;
export declare const createPlantCall: typeof createPlantCallEntry;
