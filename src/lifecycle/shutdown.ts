import type { Logger } from '../logger.js';
import type { Closers } from './closers.js';
import type { WorkTracker } from './work-tracker.js';

/**
 * The bot's `close()`, once however often it is called: first what starts new work (digests,
 * watch checks, catalog crawls) stops, then the work in flight drains (queued reports are told,
 * new commands turned away), then the app stops, then the closers, in reverse of their opening.
 */
export function shutdownInOrder(parts: {
  starters: readonly { stop(): void }[];
  work: WorkTracker;
  app: { stop(): Promise<unknown> };
  closers: Closers;
  logger: Logger;
}): (options?: { drainMs?: number }) => Promise<void> {
  let closing: Promise<void> | undefined;
  return (options = {}) => {
    closing ??= (async () => {
      for (const starter of parts.starters) starter.stop();
      const drained = await parts.work.drain(options.drainMs ?? 30_000);
      if (drained.unfinished > 0) parts.logger.warn('Shutting down with work unfinished', drained);
      await parts.app.stop().catch(() => undefined);
      await parts.closers.closeAll();
    })();
    return closing;
  };
}
