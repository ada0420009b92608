/**
 * Acknowledgements go before answers. A listener's work after `ack()` (finding events, rendering
 * Block Kit, calling Slack) runs on the same thread as every other request's parsing and ack: run
 * at once, twenty commands' work stands between the twenty-first command and its ack (profiled:
 * issue 16 item 13). Work that waits here starts one listener per turn of the event loop, and each
 * turn first reads the requests that have arrived, so a waiting ack is held up by at most one
 * listener's step, never by everyone's.
 *
 * One queue for the process: there is one event loop to share.
 */
const waiting: (() => void)[] = [];
let scheduled = false;

function startNext(): void {
  scheduled = false;
  waiting.shift()?.();
  // An immediate queued while immediates run waits for the next turn, after the next I/O poll.
  if (waiting.length > 0) schedule();
}

function schedule(): void {
  scheduled = true;
  setImmediate(startNext);
}

/** Resolves once the requests that have already arrived have been read (and acknowledged), in turn. */
export function afterWaitingAcks(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) schedule();
  });
}

/** Acknowledges the request, then waits for its turn to do the work that follows. */
export async function ackFirst(ack: () => Promise<void>): Promise<void> {
  await ack();
  await afterWaitingAcks();
}
