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
}

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
  return { firstDelivery: (executionId) => firstTime(`workflow-run:${executionId}`), firstTime };
}
