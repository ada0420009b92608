import { join } from 'node:path';
import { expect } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { BotRig } from './bot.js';

/**
 * A zone where it is not within two minutes of midnight, and the time of day there a minute ago:
 * a digest at that time is due today and within its grace, whatever the time the test runs.
 */
export function aMinuteAgo(): { zone: string; time: string; date: string } {
  for (const zone of ['UTC', 'Etc/GMT-6', 'Etc/GMT+6']) {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-CA', {
        timeZone: zone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      })
        .formatToParts(new Date(Date.now() - 60_000))
        .map((part) => [part.type, part.value]),
    );
    const minutes = Number(parts.hour) * 60 + Number(parts.minute);
    if (minutes > 2 && minutes < 24 * 60 - 3)
      return { zone, time: `${parts.hour}:${parts.minute}`, date: `${parts.year}-${parts.month}-${parts.day}` };
  }
  throw new Error('no zone away from midnight');
}

/** Stops the bot as a crash would leave it: `claim` unsettled in the store, then starts it again. */
export async function crashAndRestart(r: BotRig, claim: { key: string; at: number }): Promise<void> {
  await r.bot.close();
  const store = await openStore(`sqlite://${join(r.dataDir, 'eventops.sqlite')}`);
  try {
    expect(await store.claims.claim(claim.key, 'crashed-run', claim.at)).toBe(true);
  } finally {
    await store.close();
  }
  await r.restart();
}
