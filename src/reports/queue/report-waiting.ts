import { TooManyReportsWaitingError, type WaitingReport } from '../../ticketing/errors.js';

/** Whose limit a request counts against: its person's, or the one all workflow steps share. */
export type RequesterKind = 'person' | 'step';

/** How many reports may wait, by requester (a report counts until it arrives). */
export interface WaitingLimits {
  /** Reports (distinct events) one person may have waiting. @default 5 */
  perPerson?: number;
  /** Reports every workflow step together may have waiting (they ask as one requester). @default 10 */
  steps?: number;
}

export const DEFAULT_WAITING_LIMITS: Required<WaitingLimits> = { perPerson: 5, steps: 10 };

/** The limits, checked: each a whole number of at least 1. */
export function waitingLimits(limits: WaitingLimits = {}): Required<WaitingLimits> {
  const checked = { ...DEFAULT_WAITING_LIMITS, ...limits };
  for (const [name, value] of Object.entries(checked)) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`${name} must be a whole number >= 1; got ${value}`);
  }
  return checked;
}

/** The limit for a kind of requester. */
export const limitFor = (limits: Required<WaitingLimits>, kind: RequesterKind | undefined): number =>
  kind === 'step' ? limits.steps : limits.perPerson;

/**
 * The reports each requester waits for, in one process. A second request for an event its
 * requester already waits for shares that report's place (one call serves both).
 */
export class ReportWaiting {
  readonly #limits: Required<WaitingLimits>;
  readonly #byRequester = new Map<string, Map<string, { label: string | undefined; count: number }>>();

  constructor(limits: WaitingLimits = {}) {
    this.#limits = waitingLimits(limits);
  }

  /**
   * Counts `report` for `requester`, or throws `TooManyReportsWaitingError` (nothing counted) when
   * they already wait for their limit of other events. The returned function uncounts it (once).
   */
  admit(requester: string, kind: RequesterKind | undefined, report: WaitingReport): () => void {
    const limit = limitFor(this.#limits, kind);
    let mine = this.#byRequester.get(requester);
    const same = mine?.get(report.eventId);
    if (!same && mine && mine.size >= limit) {
      const waiting = [...mine].map(([eventId, { label }]) => ({ eventId, ...(label ? { label } : {}) }));
      throw new TooManyReportsWaitingError({ limit, requesterKind: kind ?? 'person', waiting });
    }
    if (!mine) {
      mine = new Map();
      this.#byRequester.set(requester, mine);
    }
    if (same) same.count += 1;
    else mine.set(report.eventId, { label: report.label, count: 1 });
    const counted = mine;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const entry = counted.get(report.eventId);
      if (entry && --entry.count <= 0) counted.delete(report.eventId);
      if (counted.size === 0 && this.#byRequester.get(requester) === counted) this.#byRequester.delete(requester);
    };
  }
}
