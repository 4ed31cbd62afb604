/**
 * Settles `configured` and `reference`, started together, and tells which settled first: a
 * configured timeout is the one applied when it gives up before the default does.
 */
export async function firstToSettle(
  configured: Promise<unknown>,
  reference: Promise<unknown>,
): Promise<{ first: 'configured' | 'reference'; configured: unknown; reference: unknown }> {
  let first: 'configured' | 'reference' | undefined;
  const settle = (which: 'configured' | 'reference', promise: Promise<unknown>) =>
    promise.then(
      (value) => {
        first ??= which;
        return value;
      },
      (error: unknown) => {
        first ??= which;
        return error;
      },
    );
  const [a, b] = await Promise.all([
    settle('configured', configured),
    settle('reference', reference),
  ]);
  return { first: first ?? 'configured', configured: a, reference: b };
}
