import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { ClaimStore } from '../store/claims.js';
import type { Clock } from '../time/clock.js';

/** The runs Slack delivered to any replica, so that a run delivered twice is run once. */
export interface WorkflowRuns {
  /** True for the first delivery of a run; false for a repeat (across replicas and restarts). */
  firstDelivery(executionId: string): Promise<boolean>;
}

/**
 * Runs remembered as settled claims (`workflow-run:<execution id>`, pruned with the others after
 * their retention). Best effort: with the store out a delivery is taken as the first (a report
 * fetched twice costs a report call; a promo write is still applied once, under its own claim).
 */
export function workflowRuns(claims: ClaimStore, clock: Clock, logger: Logger): WorkflowRuns {
  return {
    async firstDelivery(executionId) {
      const key = `workflow-run:${executionId}`;
      const owner = randomUUID();
      try {
        if (!(await claims.claim(key, owner, clock.now()))) return false;
        await claims.settle(key, owner, 'done', clock.now());
      } catch (error) {
        logger.warn('Could not check whether a workflow run was delivered before; running it', { error });
      }
      return true;
    },
  };
}
