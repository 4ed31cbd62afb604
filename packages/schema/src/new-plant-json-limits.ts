import type { FlatRecordLimits } from './json.ts';
import { FIELD_LIST } from './plant-fields.ts';

const longestText = Math.max(
  ...FIELD_LIST.map((field) => (field.type === 'string' ? field.maxLength : 0)),
);

// Its own module, off the browser's path (`shapes`): only the server's parser reads it.
/**
 * How far `parseJson` reads a body meant to be a NewPlant, a flat record (`flatRecord`): its
 * fields, each key repeated with the same value at most a few times (16 members in all, or
 * twice the keys when they are more than 8), and strings up to 12 characters of JSON text
 * (`\uD83C\uDF3F`) per character of the longest string field and then some, so a string cut
 * there is still too long wherever a string field's limit applies.
 */
export const NEW_PLANT_JSON_LIMITS: FlatRecordLimits = {
  maxMembers: Math.max(16, 2 * (FIELD_LIST.length + 1)),
  maxStringLength: 12 * (longestText + 2),
};
