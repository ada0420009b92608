import { type Clock, sleep, systemClock } from '../time/clock.js';

export interface PacedPosterOptions {
  /** Least time between two posts to one channel (Slack allows about one a second). @default 1100 */
  perChannelMs?: number;
  /** Posts in flight at once across channels. @default 4 */
  concurrency?: number;
  /** @default the system clock (the pace is waited out in real time) */
  clock?: Clock;
}

/**
 * Spreads posts to respect Slack's per-channel pace: posts to one channel go one after another,
 * spaced; different channels go in parallel up to a small concurrency. A 429 from Slack is
 * waited out by the Web API client itself, as its Retry-After says.
 */
export function pacedPoster<Args extends unknown[]>(
  post: (channel: string, ...args: Args) => Promise<void>,
  options: PacedPosterOptions = {},
): (channel: string, ...args: Args) => Promise<void> {
  const perChannelMs = options.perChannelMs ?? 1_100;
  const concurrency = options.concurrency ?? 4;
  const clock = options.clock ?? systemClock;
  const lastPost = new Map<string, Promise<number>>();
  let active = 0;
  const waiting: (() => void)[] = [];
  const slot = async () => {
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
  };
  const free = () => {
    active -= 1;
    waiting.shift()?.();
  };
  return (channel, ...args) => {
    const previous = lastPost.get(channel) ?? Promise.resolve(0);
    const mine = previous
      .catch(() => 0)
      .then(async (previousAt) => {
        const wait = previousAt + perChannelMs - clock.now();
        if (wait > 0) await sleep(wait);
        await slot();
        try {
          await post(channel, ...args);
        } finally {
          free();
        }
        return clock.now();
      });
    lastPost.set(channel, mine);
    return mine.then(() => undefined);
  };
}
