import type { FlatRecordLimits } from './json.ts';
import { NAME_MAX_LENGTH } from './text.ts';

// Its own module, off the browser's path (`shapes`): only the server's parser reads it.
/**
 * How far `parseJson` reads a body meant to be a NewPlant, a flat record (`flatRecord`): its
 * three fields, each key repeated with the same value at most a few times (16 members in all),
 * and strings up to 12 characters of JSON text (`\uD83C\uDF3F`) per character of the longest
 * name and then some, so a string cut there is still too long wherever a name's limit applies.
 */
export const NEW_PLANT_JSON_LIMITS: FlatRecordLimits = {
  maxMembers: 16,
  maxStringLength: 12 * (NAME_MAX_LENGTH + 2),
};
