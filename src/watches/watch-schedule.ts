/**
 * When each watched event is checked. With W watched events and no one asking, every event is
 * checked at least every max(ceil(W / limit) windows, the minimum interval): the report limit's
 * slots go round the events. Among those due, the most overdue goes first, then the one starting
 * sooner; a slot that would otherwise go unused checks early the event starting soonest (never
 * sooner than the minimum interval after its last check). One never checked is due at once, and
 * ranks by its own deadline: an interval after it was first watched.
 */
export interface WatchScheduleRule {
  /** Report calls per window (the spec's 3). */
  limit: number;
  /** The window in ms (the spec's minute). */
  windowMs: number;
  /** Never check one event more often than this. */
  minIntervalMs: number;
}

export interface WatchCandidate {
  eventId: string;
  /** The last check of the event (a watch's or a person's report); undefined: never checked. */
  lastCheckedAt: number | undefined;
  /** Since when it has been watched (undefined: not known, a record written before it was kept). */
  watchedSince?: number | undefined;
  startsAtMs: number | undefined;
}

export interface NextCheck {
  eventId: string;
  /** When the check is due: now or earlier for one that is, later for the next one. */
  dueAt: number;
  /** The key of this due time, the same on every replica: one check per due time. */
  dueKey: string;
  /** When the event was last checked (or its check failed). */
  lastCheckedAt: number | undefined;
}

/** How often each of `watchedEvents` is checked at least. */
export function checkInterval(watchedEvents: number, rule: WatchScheduleRule): number {
  const rounds = Math.ceil(Math.max(1, watchedEvents) / rule.limit);
  return Math.max(rounds * rule.windowMs, rule.minIntervalMs);
}

const startOf = (candidate: WatchCandidate) => candidate.startsAtMs ?? Number.POSITIVE_INFINITY;

/** The event to check next, and when. */
export function nextCheck(
  candidates: readonly WatchCandidate[],
  now: number,
  rule: WatchScheduleRule,
): NextCheck | undefined {
  if (candidates.length === 0) return undefined;
  const interval = checkInterval(candidates.length, rule);
  const due = candidates
    .map((candidate) => {
      const dueAt =
        candidate.lastCheckedAt === undefined ? Number.NEGATIVE_INFINITY : candidate.lastCheckedAt + interval;
      // One never checked ranks by its deadline, an interval after it was first watched, and no
      // later than now: behind the checks already overdue that fall due before it (each watch set
      // would otherwise push them a slot later, past their bound), and ahead of them once it is
      // the most overdue. Ranked at now for ever, it waited behind overdue checks without end
      // whenever the slots could not keep up (people's reports taking most of them).
      // A record written before `watchedSince` was kept has waited an unknown time, perhaps since
      // before the upgrade: it goes first, once.
      const rank =
        candidate.lastCheckedAt !== undefined
          ? dueAt
          : candidate.watchedSince === undefined
            ? Number.NEGATIVE_INFINITY
            : Math.min(now, candidate.watchedSince + interval);
      return { candidate, dueAt, rank };
    })
    .sort((a, b) => a.rank - b.rank || startOf(a.candidate) - startOf(b.candidate));
  const first = due[0] as (typeof due)[number];
  // A never-checked event's key names since when it is watched: watched again after all its
  // watches went, it is new work, not the check an earlier claim already settled.
  const keyOf = (candidate: WatchCandidate) =>
    `${candidate.eventId}:${candidate.lastCheckedAt ?? `never:${candidate.watchedSince ?? 'unknown'}`}`;
  if (first.dueAt <= now)
    return {
      eventId: first.candidate.eventId,
      dueAt: Math.max(first.dueAt, 0),
      dueKey: keyOf(first.candidate),
      lastCheckedAt: first.candidate.lastCheckedAt,
    };
  // Nothing due: a slot that would go unused (the next due time is more than a slot away) checks
  // the soonest-starting event early, if its minimum interval has passed.
  const slotMs = rule.windowMs / rule.limit;
  if (first.dueAt - now > slotMs) {
    const early = candidates
      .filter((c) => c.lastCheckedAt !== undefined && c.lastCheckedAt + rule.minIntervalMs <= now)
      .sort((a, b) => startOf(a) - startOf(b))[0];
    if (early && early.startsAtMs !== undefined)
      return { eventId: early.eventId, dueAt: now, dueKey: keyOf(early), lastCheckedAt: early.lastCheckedAt };
  }
  return {
    eventId: first.candidate.eventId,
    dueAt: first.dueAt,
    dueKey: keyOf(first.candidate),
    lastCheckedAt: first.candidate.lastCheckedAt,
  };
}
