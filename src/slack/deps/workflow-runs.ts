import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.js';
import type { ClaimStore } from '../../store/claims.js';
import type { Clock } from '../../time/clock.js';

/**
 * What Slack delivered to any replica, so that what it delivers twice is done once: a workflow
 * run, a button that must act once however often it is clicked.
 */
export interface WorkflowRuns {
  /** True for the first delivery of a run; false for a repeat (across replicas and restarts). */
  firstDelivery(executionId: string): Promise<boolean>;
  /** True the first time `key` is seen (a click that posts once); false for a repeat. */
  firstTime(key: string): Promise<boolean>;
  /**
   * Claims `key` for work done once, but counted done only when it succeeds (a Post in channel
   * click): `mine` with the owner to `finish` it with, `busy` while it is under way (or was, on a
   * replica that died less than `STALE_MS` ago), `done` once it succeeded.
   */
  begin(key: string): Promise<{ kind: 'mine'; owner: string } | { kind: 'busy' } | { kind: 'done' }>;
  /** Ends what `begin` claimed: done for good when it succeeded, else free to be tried again. */
  finish(key: string, owner: string, succeeded: boolean): Promise<void>;
}

/**
 * A claim `begin` made that was never finished (its replica died) is taken over after this long:
 * longer than a report may wait (10 minutes) and be posted, so a slow one is never posted twice.
 */
const STALE_MS = 20 * 60_000;

/**
 * Runs remembered as settled claims (`workflow-run:<execution id>`, pruned with the others after
 * their retention). Best effort: with the store out a delivery is taken as the first (a report
 * fetched twice costs a report call; a promo write is still applied once, under its own claim).
 */
export function workflowRuns(claims: ClaimStore, clock: Clock, logger: Logger): WorkflowRuns {
  const firstTime = async (key: string) => {
    const owner = randomUUID();
    try {
      if (!(await claims.claim(key, owner, clock.now()))) return false;
      await claims.settle(key, owner, 'done', clock.now());
    } catch (error) {
      logger.warn('Could not check whether this was delivered before; acting on it', { key, error });
    }
    return true;
  };
  const begin: WorkflowRuns['begin'] = async (key) => {
    const owner = randomUUID();
    const now = clock.now();
    if (await claims.claim(key, owner, now)) return { kind: 'mine', owner };
    const claim = await claims.get(key);
    if (!claim) return { kind: 'busy' };
    if (claim.state === 'done') return { kind: 'done' };
    if (claim.state === 'claimed' && now - claim.at < STALE_MS) return { kind: 'busy' };
    return (await claims.takeOver(key, claim, owner, now)) ? { kind: 'mine', owner } : { kind: 'busy' };
  };
  const finish: WorkflowRuns['finish'] = async (key, owner, succeeded) => {
    try {
      if (succeeded) await claims.settle(key, owner, 'done', clock.now());
      else await claims.release(key, owner);
    } catch (error) {
      logger.warn('Could not record how a once-only action ended', { key, succeeded, error });
    }
  };
  return { firstDelivery: (executionId) => firstTime(`workflow-run:${executionId}`), firstTime, begin, finish };
}
