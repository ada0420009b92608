/**
 * Acknowledgements go before answers. A listener's work after `ack()` (finding events, rendering
 * Block Kit, calling Slack) runs on the same thread as every other request's parsing and ack: run
 * at once, twenty commands' work stands between the twenty-first command and its ack (profiled:
 * issue 16 item 13). Work that waits here starts one listener per turn of the event loop, and each
 * turn first reads the requests that have arrived, so a waiting ack is held up by at most one
 * listener's step, never by everyone's.
 *
 * New connections need more: libuv accepts one connection a turn (since libuv 1.45, Node 20), so
 * twenty commands on twenty new connections are read over twenty turns, and a listener started in
 * each turn stood before each of them (profiled: issue 44 item 9, the 20th connection accepted
 * after 470 ms). While the HTTP receiver is still accepting, no listener starts: the turns are
 * then only accepts, reads and acks. Never longer than `HOLD_MS` at a time, so a flood of
 * connections cannot stop the work.
 *
 * One queue for the process: there is one event loop to share.
 */
const waiting: (() => void)[] = [];
let scheduled = false;
/** A connection was accepted since the last turn's check. */
let accepted = false;
/** When listeners were first held for connections being accepted, if they are. */
let heldSince: number | undefined;
const HOLD_MS = 100;

function startNext(): void {
  scheduled = false;
  if (accepted && waiting.length > 0) {
    accepted = false;
    heldSince ??= performance.now();
    // The kernel may hold more connections, each a turn away: hold the work a turn.
    if (performance.now() - heldSince < HOLD_MS) {
      schedule();
      return;
    }
  }
  accepted = false;
  heldSince = undefined;
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

/** Acks handed to listeners of requests acknowledged, and waited for, before Bolt's pipeline ran. */
const alreadyGiven = new WeakSet<object>();

/** An ack for a request already acknowledged and past its wait: `ackFirst` neither acks nor waits again. */
export function ackAlreadyGiven(): () => Promise<void> {
  const ack = async () => {};
  alreadyGiven.add(ack);
  return ack;
}

/** Acknowledges the request, then waits for its turn to do the work that follows. */
export async function ackFirst(ack: () => Promise<void>): Promise<void> {
  // Acknowledged by the app, which waited its turn already (slack/app/bolt-app.ts): a second wait
  // would only hold a modal's trigger id longer.
  if (alreadyGiven.has(ack)) return;
  await ack();
  await afterWaitingAcks();
}

/** Holds listeners' work while `server` (the HTTP receiver) is accepting connections; see above. */
export function ackNewConnectionsFirst(server: { on(event: 'connection', listener: () => void): unknown }): void {
  server.on('connection', () => {
    accepted = true;
  });
}
