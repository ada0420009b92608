import { CancelledError } from '../../ticketing/errors.js';

/**
 * How long a person's report request may take, queue and call together, before they are told to
 * try later: the same for the in-process queue and the replicas' shared one.
 */
export const REPORT_DEADLINE_MS = 10 * 60_000;

/** Why a report was given up at its deadline: the person reads what any cancelled call says. */
export function reportDeadlineError(): CancelledError {
  return new CancelledError('The report request waited past its deadline');
}
