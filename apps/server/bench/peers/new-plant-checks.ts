import { exactInt64 } from './int64-id.ts';
import type { PlantRow } from './sqlite-group-commit.ts';

export const NAME_MAX = 200;
export const TAG_MAX = 100;
// C0 controls, DEL and C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The NewPlant rules, written by hand: an object with exactly `id` (an exact int64, see
 * `exactInt64`), `name` (1–200 code points) and optionally `tag` (1–100 code points), both
 * well-formed Unicode without control characters; any other key is refused. `value` is what
 * `JSON.parse(json)` returned. Returns the row to store, or what is wrong.
 *
 * @example
 * checkNewPlant(JSON.parse(text), text); // { id: 1, name: 'Fern', tag: undefined }
 */
export function checkNewPlant(value: unknown, json: string): PlantRow | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'the body must be a JSON object';
  }
  const body = value as Record<string, unknown>;
  for (const key in body) {
    if (key !== 'id' && key !== 'name' && key !== 'tag') return `unknown property ${key}`;
  }
  const id = exactInt64(body.id, json);
  if (id === undefined) return 'id must be an integer from -2^63 to 2^63-1';
  const name = body.name;
  const nameProblem = textProblem(name, NAME_MAX);
  if (nameProblem !== undefined) return `name ${nameProblem}`;
  const tag = body.tag;
  if (tag !== undefined) {
    const tagProblem = textProblem(tag, TAG_MAX);
    if (tagProblem !== undefined) return `tag ${tagProblem}`;
  }
  return { id, name: name as string, tag: tag as string | undefined };
}

function textProblem(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length === 0) return 'must not be empty';
  // UTF-16 units ≥ code points: only a string longer than `max` units needs counting.
  if (value.length > max && codePoints(value) > max) return `must be at most ${max} characters`;
  if (!value.isWellFormed()) return 'must be well-formed Unicode';
  if (CONTROL.test(value)) return 'must not contain control characters';
  return undefined;
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
