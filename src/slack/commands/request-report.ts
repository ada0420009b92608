import { randomUUID } from 'node:crypto';
import type { RespondFn, webApi } from '@slack/bolt';
import { type EventTarget, resolveEvent } from '../../catalog/find-events.js';
import type { Logger } from '../../logger.js';
import { plainMessage, type SlackMessage } from '../../render/block-kit.js';
import { eventChoicesMessage, eventLabel, noEventMessage } from '../../render/event-blocks.js';
import { code, md } from '../../render/mrkdwn.js';
import {
  reportAbandonedMessage,
  reportFailedMessage,
  reportMessage,
  reportProgressMessage,
} from '../../render/report-blocks.js';
import { REPORT_DEADLINE_MS } from '../../ticketing/report-deadline.js';
import type { ReportProgress } from '../../ticketing/report-queue.js';
import type { ReportOutcome } from '../../ticketing/shared-report-queue.js';
import { sleep } from '../../time/clock.js';
import type { SharedReports, SlackDeps } from '../deps.js';
import { type ReportDelivery, ReportMessage } from '../report-message.js';
import { respondPrivately } from '../respond-safely.js';
import { userMessageFor } from '../user-message.js';

export interface ReportRequest {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  userId: string;
  eventId: string;
  /** How the messages name the event (its name when it has one). */
  label: string;
  /** The request's response URL, so that another replica can still answer privately. */
  responseUrl?: string | undefined;
}

/** `/events report <id or words>`: finds the one event meant in the catalog, then requests its report. */
export async function handleReportCommand(
  deps: SlackDeps,
  request: Omit<ReportRequest, 'eventId' | 'label'> & { target: EventTarget },
): Promise<void> {
  let resolved: Awaited<ReturnType<typeof resolveEvent>>;
  try {
    resolved = await resolveEvent(deps.catalog, request.target, deps.interactive());
  } catch (error) {
    await respondPrivately(request.respond, plainMessage(md`:warning: ${userMessageFor(error)}`), deps.logger);
    return;
  }
  const query = 'id' in request.target ? request.target.id : request.target.words;
  if (resolved.kind === 'found') {
    await requestReport(deps, { ...request, eventId: resolved.event.id, label: eventLabel(resolved.event) });
  } else if (resolved.kind === 'choices') {
    const message = eventChoicesMessage({ events: resolved.events, query, action: 'report', asOf: resolved.asOf });
    await respondPrivately(request.respond, message, deps.logger);
  } else {
    await respondPrivately(
      request.respond,
      noEventMessage({ target: query, asOf: resolved.asOf, refreshPeriodMs: deps.catalog.periodMs }),
      deps.logger,
    );
  }
}

/**
 * `/events report <eventId>`: queues the report, shows its place in a message that moves with the
 * queue (`ReportMessage`), then the report itself with the full JSON attached. With replicas the
 * queue is the shared one, and whichever replica fetches the report finishes the message.
 */
export async function requestReport(deps: SlackDeps, request: ReportRequest): Promise<void> {
  if (deps.sharedReports) {
    await requestSharedReport(deps, deps.sharedReports, request);
    return;
  }
  const { eventId } = request;
  const log = deps.logger.child({ command: 'report', eventId, channel: request.channelId });
  let message: ReportMessage | undefined;
  let lastPosition: number | undefined;
  let lastEdit = 0;
  const onProgress = (progress: ReportProgress) => {
    if (progress.state === 'done' || !message) return;
    const position = progress.state === 'fetching' ? 0 : progress.position;
    const now = deps.clock.now();
    if (position === lastPosition || now - lastEdit < deps.progressIntervalMs) return;
    lastPosition = position;
    lastEdit = now;
    void message.show(reportProgressMessage(progress, request.label, deps.reportLimit), false);
  };
  const waited = deps.metrics?.reportWait.startTimer();
  const ticket = deps.ticketing.requestReport(eventId, {
    priority: 'interactive',
    signal: AbortSignal.timeout(REPORT_DEADLINE_MS),
    onProgress,
  });
  // At shutdown a report still queued is given up, and its message says so; one being fetched finishes.
  const abandon = () => {
    if (ticket.progress().state === 'queued') ticket.cancel();
  };
  deps.work.stopping.addEventListener('abort', abandon, { once: true });
  if (deps.work.stopping.aborted) abandon();
  const first = ticket.progress();
  message = await openReportMessage(deps, request, reportProgressMessage(first, request.label, deps.reportLimit), log);
  lastPosition = first.state === 'queued' ? first.position : 0;
  lastEdit = deps.clock.now();

  let outcome: ReportOutcome;
  try {
    outcome = { kind: 'report', report: await ticket.result };
  } catch (error) {
    outcome = { kind: 'failed', error };
  } finally {
    deps.work.stopping.removeEventListener('abort', abandon);
    waited?.();
  }
  if (outcome.kind === 'failed' && deps.work.stopping.aborted) {
    await message.show(reportAbandonedMessage(eventId), true);
    return;
  }
  await finishReport(deps, message, { eventId, label: request.label, userId: request.userId }, outcome);
}

function openReportMessage(deps: SlackDeps, request: ReportRequest, first: SlackMessage, log: Logger) {
  const slack = { ...request, metrics: deps.metrics };
  return ReportMessage.open(slack, request.channelId, first, log);
}

const messageLock = (delivery: Pick<ReportDelivery, 'messageKey'>) => `report-message:${delivery.messageKey}`;

/**
 * The shared queue: the request is persisted in Redis before the person is told its place, then
 * the place is kept up to date while it waits. Edits and the final answer take the message's lock
 * in turn, so a late progress edit never covers the report another replica has just posted.
 */
async function requestSharedReport(deps: SlackDeps, shared: SharedReports, request: ReportRequest): Promise<void> {
  const log = deps.logger.child({ command: 'report', eventId: request.eventId, channel: request.channelId });
  const who = { eventId: request.eventId, label: request.label, userId: request.userId };
  const cached = await shared.queue.cached(request.eventId);
  if (cached) {
    const fetching: ReportProgress = { state: 'fetching', position: 0, estimatedWaitMs: 0 };
    const message = await openReportMessage(
      deps,
      request,
      reportProgressMessage(fetching, request.label, deps.reportLimit),
      log,
    );
    await finishReport(deps, message, who, { kind: 'report', report: cached });
    return;
  }
  const ahead = await shared.queue.waiting().catch(() => 0);
  const guess: ReportProgress = { state: 'queued', position: ahead + 1, estimatedWaitMs: 0 };
  const message = await openReportMessage(
    deps,
    request,
    reportProgressMessage(guess, request.label, deps.reportLimit),
    log,
  );
  const delivery: ReportDelivery = { ...who, where: message.where, messageKey: randomUUID() };
  let jobId: string;
  try {
    jobId = await shared.queue.submit(request.eventId, delivery);
  } catch (error) {
    log.warn('Could not queue the report', { error });
    await message.show(reportFailedMessage(request.label, userMessageFor(error)), true);
    return;
  }
  // This replica follows the place while it waits (first at once: the guess had no wait in it);
  // shutdown stops following, not the request. One that waited past its deadline, or that Redis
  // lost, ends here with the person told; Redis out for a while (perhaps restarting empty) only
  // pauses the following, up to the deadline.
  let shown: ReportProgress = guess;
  const giveUpAt = deps.clock.now() + REPORT_DEADLINE_MS;
  let failing = false;
  for (let first = true; !deps.work.stopping.aborted; first = false) {
    if (!first) await sleep(deps.progressIntervalMs, deps.work.stopping).catch(() => undefined);
    if (deps.work.stopping.aborted) return;
    const keepGoing = await shared
      .exclusive(messageLock(delivery), async () => {
        const progress = await shared.queue.progress(jobId);
        if (progress.state === 'expired') {
          await finishReport(deps, message, who, { kind: 'failed', error: progress.error });
          return false;
        }
        if (progress.state === 'lost') {
          log.warn('A queued report was lost from Redis (flushed or evicted)', { jobId });
          await message.show(reportFailedMessage(request.label, lostReason(request.eventId)), true);
          return false;
        }
        if (progress.state !== 'queued') return false;
        const moved = progress.position !== shown.position;
        if (moved || (first && progress.estimatedWaitMs > 0)) {
          shown = progress;
          await message.show(reportProgressMessage(progress, request.label, deps.reportLimit), false);
        }
        return true;
      })
      .then(
        (keep) => {
          failing = false;
          return keep;
        },
        async (error: unknown) => {
          if (!failing) log.warn('Could not follow the report queue; trying again each round', { error });
          failing = true;
          if (deps.clock.now() < giveUpAt) return true;
          await message.show(reportFailedMessage(request.label, userMessageFor(error)), true);
          return false;
        },
      );
    if (!keepGoing) return;
  }
}

/** Why a report Redis lost will not come, and what to do. */
const lostReason = (eventId: string) =>
  md`it was not fetched: Redis lost its place in the queue (emptied or evicted). Ask again with ${code(`/events report ${eventId}`)}.`;

/** Finishes a report on the replica that fetched it, for a request made on any replica. */
export async function deliverReport(
  deps: Pick<SlackDeps, 'activity' | 'clock' | 'logger'>,
  client: webApi.WebClient,
  exclusive: SharedReports['exclusive'],
  delivery: ReportDelivery,
  outcome: ReportOutcome,
): Promise<void> {
  const log = deps.logger.child({ command: 'report', eventId: delivery.eventId });
  await exclusive(messageLock(delivery), () =>
    finishReport(deps, ReportMessage.resume(client, delivery.where, log), delivery, outcome),
  );
}

/** The report in its message with the full JSON attached, or why it failed; then the activity. */
async function finishReport(
  deps: Pick<SlackDeps, 'activity' | 'clock' | 'logger'>,
  message: ReportMessage,
  request: { eventId: string; label: string; userId: string },
  outcome: ReportOutcome,
): Promise<void> {
  const { eventId } = request;
  if (outcome.kind === 'failed') {
    deps.logger.warn('The report request failed', { eventId, error: outcome.error });
    await message.show(reportFailedMessage(request.label, userMessageFor(outcome.error)), true);
    return;
  }
  const { report } = outcome;
  const attachmentNote = await message.attach({
    filename: `report-${eventId}.json`,
    title: `Report ${eventId}`,
    content: JSON.stringify(report, null, 2),
  });
  const eventName = typeof report.eventName === 'string' ? report.eventName : undefined;
  await message.show(reportMessage(report, { eventId, eventName, attachmentNote }), true);
  await deps.activity
    .recordReport({
      at: new Date(deps.clock.now()).toISOString(),
      userId: request.userId,
      eventId,
      ...(eventName ? { eventName } : {}),
    })
    .catch((error: unknown) => deps.logger.warn('Could not record the report in the store', { error, eventId }));
}
