import type { RespondFn, webApi } from '@slack/bolt';
import { type EventTarget, resolveEvent } from '../../catalog/find-events.js';
import { plainMessage } from '../../render/block-kit.js';
import { eventChoicesMessage, eventLabel, noEventMessage } from '../../render/event-blocks.js';
import { md } from '../../render/mrkdwn.js';
import {
  reportAbandonedMessage,
  reportFailedMessage,
  reportMessage,
  reportProgressMessage,
} from '../../render/report-blocks.js';
import type { ReportProgress } from '../../ticketing/report-queue.js';
import type { SlackDeps } from '../deps.js';
import { ReportMessage } from '../report-message.js';
import { respondPrivately } from '../respond-safely.js';
import { userMessageFor } from '../user-message.js';

/** A report waits at most this long in the queue before the person is told to try later. */
const REPORT_DEADLINE_MS = 10 * 60_000;

export interface ReportRequest {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  userId: string;
  eventId: string;
  /** How the messages name the event (its name when it has one). */
  label: string;
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
 * `/events report <eventId>`: queues the report with the client, shows its place in a message
 * that moves with the queue (`ReportMessage`), then the report itself with the full JSON attached.
 */
export async function requestReport(deps: SlackDeps, request: ReportRequest): Promise<void> {
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
  message = await ReportMessage.open(
    { ...request, metrics: deps.metrics },
    request.channelId,
    reportProgressMessage(first, request.label, deps.reportLimit),
    log,
  );
  lastPosition = first.state === 'queued' ? first.position : 0;
  lastEdit = deps.clock.now();

  let report: Awaited<typeof ticket.result>;
  try {
    report = await ticket.result;
  } catch (error) {
    const abandoned = deps.work.stopping.aborted;
    if (!abandoned) log.warn('The report request failed', { error });
    await message.show(
      abandoned ? reportAbandonedMessage(eventId) : reportFailedMessage(request.label, userMessageFor(error)),
      true,
    );
    return;
  } finally {
    deps.work.stopping.removeEventListener('abort', abandon);
    waited?.();
  }

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
    .catch((error: unknown) => log.warn('Could not record the report in the store', { error }));
}
