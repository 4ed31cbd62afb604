import { messagesOf } from './error-catalog.ts';

/**
 * The `message` of every Error answer the server sends, by catalog name and situation (a 400
 * for an invalid NewPlant is `formatIssues` of its problems): each entry's `message` in
 * error-catalog.ts, where a new error's message is written. The server answers with these, and
 * the OpenAPI document builds each example from them, so no example shows a message the server
 * never sends.
 *
 * @example
 * ERROR_MESSAGES.conflict(10n); // `A plant with id 10 already exists with a different ${fieldNames('or')}`
 */
export const ERROR_MESSAGES = messagesOf();
