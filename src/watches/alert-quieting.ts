import { z } from 'zod';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { Clock } from '../time/clock.js';
import type { ConditionState, Watch, WatchQuiet } from './watch.js';
import type { WatchCondition } from './watch-condition.js';
import type { WatchStore } from './watch-store.js';

/**
 * Quiet alerts (issue 37): a watch snoozed (for a while, or until its next threshold), people who
 * muted a channel watch for themselves, and channels that keep alerts in the cards' threads. Kept
 * on the watch's own record and a channel record in the store, so they hold across restarts and
 * replicas; the check carrier and the posts ask this module and nothing else.
 */

/** Conditions that cross a threshold (what "until the next threshold" waits for), not movement. */
const THRESHOLDS: ReadonlySet<WatchCondition['kind']> = new Set([
  'figure',
  'sold-share',
  'left',
  'sold-out',
  'sells-out',
  'behind-similar',
]);

/** Alerts that also go to the channel, not only the thread: thresholds, or in a thread-only channel a sell-out. */
export function broadcasts(kind: WatchCondition['kind'], threadOnly: boolean): boolean {
  return threadOnly ? kind === 'sold-out' : THRESHOLDS.has(kind);
}

export type SnoozeChoice = '1h' | '1d' | 'threshold';

const SNOOZE_MS: Record<Exclude<SnoozeChoice, 'threshold'>, number> = { '1h': 3_600_000, '1d': 86_400_000 };

/** Whether a condition may alert on a check made at `checkedAt`. */
export function mayAlert(watch: Watch, condition: WatchCondition, checkedAt: number): boolean {
  const quiet = watch.quiet;
  if (!quiet) return true;
  if (quiet.snoozedUntil !== undefined && checkedAt < quiet.snoozedUntil) return false;
  return !quiet.untilThreshold || THRESHOLDS.has(condition.kind);
}

/** From when a check may serve as the baseline of movement: the watch's start, or a snooze's end. */
export const baselineFrom = (watch: Watch): number => Math.max(watch.createdAt, watch.quiet?.baselineAt ?? 0);

/** Who an alert names: who set the watch up and who added the condition, but nobody who muted it. */
export function mentioned(watch: Watch, state: ConditionState): string[] {
  if (watch.personal) return [];
  const muted = new Set(watch.quiet?.muted ?? []);
  return [...new Set([watch.setBy, state.addedBy])].filter((person) => !muted.has(person));
}

export const isMuted = (watch: Watch, person: string): boolean => watch.quiet?.muted?.includes(person) ?? false;

/**
 * Who may snooze a watch: a snooze quiets it for everyone, so only the people it speaks for (who
 * set it up or added a condition); anyone else mutes it for themselves.
 */
export const maySnooze = (watch: Watch, person: string): boolean =>
  watch.setBy === person || watch.conditions.some((state) => state.addedBy === person);

const channelKey = (channel: string) => `watch-channel:${channel}`;
const channelSchema = z.object({ threadOnly: z.boolean().optional() });

/** The stored side of quieting: snoozes and mutes on the watch records, thread-only per channel. */
export class AlertQuieting {
  constructor(
    private readonly watches: WatchStore,
    private readonly store: KeyValueStore,
    private readonly clock: Clock,
  ) {}

  /** Snoozes a watch; the watch as stored after, or undefined when it is gone. */
  async snooze(channel: string, eventId: string, by: string, choice: SnoozeChoice): Promise<Watch | undefined> {
    const now = this.clock.now();
    return this.watches.update(channel, eventId, (current) => {
      if (!current) return undefined;
      const { snoozedUntil: _until, untilThreshold: _threshold, ...rest } = current.quiet ?? {};
      const quiet: WatchQuiet =
        choice === 'threshold'
          ? { ...rest, untilThreshold: true, snoozedBy: by }
          : // The snooze's end is the baseline: the next alert compares figures from after it.
            { ...rest, snoozedUntil: now + SNOOZE_MS[choice], baselineAt: now + SNOOZE_MS[choice], snoozedBy: by };
      return { ...current, quiet };
    });
  }

  /** A threshold alerted through an "until the next threshold" snooze: the snooze ends at its check. */
  async thresholdAlerted(watch: Watch, checkedAt: number): Promise<void> {
    if (!watch.quiet?.untilThreshold) return;
    await this.watches.update(watch.channel, watch.eventId, (current) => {
      if (!current || current.createdAt !== watch.createdAt || !current.quiet?.untilThreshold) return undefined;
      const { untilThreshold: _threshold, snoozedBy: _by, ...rest } = current.quiet;
      return { ...current, quiet: { ...rest, baselineAt: Math.max(rest.baselineAt ?? 0, checkedAt) } };
    });
  }

  /** Mutes a channel watch for one person, or unmutes it when it was muted; whether it is muted now. */
  async toggleMute(channel: string, eventId: string, person: string): Promise<boolean | undefined> {
    let mutedNow: boolean | undefined;
    await this.watches.update(channel, eventId, (current) => {
      if (!current) return undefined;
      const muted = current.quiet?.muted ?? [];
      mutedNow = !muted.includes(person);
      const next = mutedNow ? [...muted, person] : muted.filter((p) => p !== person);
      return { ...current, quiet: { ...current.quiet, muted: next } };
    });
    return mutedNow;
  }

  async setThreadOnly(channel: string, on: boolean): Promise<void> {
    await this.store.update<unknown>(channelKey(channel), (stored) => {
      const parsed = channelSchema.safeParse(stored ?? {});
      return { ...(parsed.success ? parsed.data : {}), threadOnly: on };
    });
  }

  async threadOnly(channel: string): Promise<boolean> {
    const parsed = channelSchema.safeParse((await this.store.get<unknown>(channelKey(channel))) ?? {});
    return parsed.success && parsed.data.threadOnly === true;
  }
}
