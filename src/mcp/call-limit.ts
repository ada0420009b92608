import type { KeyValueStore } from '../store/key-value-store.js';
import type { RateLimitSpec } from '../ticketing/rate-limit.js';

/**
 * Takes one of `userId`'s MCP tool calls within `limit` (a rolling window), in the shared store so
 * that every replica counts the same calls; false when the window is full (nothing is taken).
 */
export async function takeToolCall(
  store: Pick<KeyValueStore, 'update'>,
  userId: string,
  limit: RateLimitSpec,
  now: number,
): Promise<boolean> {
  let taken = false;
  await store.update<number[]>(`mcp-calls:${userId}`, (calls) => {
    const recent = (Array.isArray(calls) ? calls : []).filter((at) => now - at < limit.windowMs);
    taken = recent.length < limit.limit;
    return taken ? [...recent, now] : recent;
  });
  return taken;
}
