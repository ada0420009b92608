/**
 * `error` and every error it wraps, nearest first: `cause`, the Slack Web API client's `original`,
 * node-redis's `socketError` and `originalError`. Cycles are cut and at most ten are yielded.
 */
export function* errorChain(error: unknown): Generator<Error> {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length > 0 && seen.size < 10) {
    const next = pending.shift();
    if (!(next instanceof Error) || seen.has(next)) continue;
    seen.add(next);
    yield next;
    const wrapped = next as { cause?: unknown; original?: unknown; socketError?: unknown; originalError?: unknown };
    pending.push(wrapped.original, wrapped.socketError, wrapped.originalError, wrapped.cause);
  }
}

/** The `code` of each error in `error`'s chain that has a string one, nearest first. */
export function* errorCodes(error: unknown): Generator<string> {
  for (const cause of errorChain(error)) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') yield code;
  }
}
