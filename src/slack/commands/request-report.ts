import type { RespondFn, webApi } from '@slack/bolt';
import type { SlackMessage } from '../../render/block-kit.js';
import { type Mrkdwn, md } from '../../render/mrkdwn.js';
import {
  reportAbandonedMessage,
  reportFailedMessage,
  reportMessage,
  reportProgressMessage,
} from '../../render/report-blocks.js';
import type { ReportProgress } from '../../ticketing/report-queue.js';
import type { SlackDeps } from '../deps.js';
import { respondPrivately } from '../respond-safely.js';
import { slackErrorCode } from '../slack-errors.js';
import { userMessageFor } from '../user-message.js';

/** A report waits at most this long in the queue before the person is told to try later. */
const REPORT_DEADLINE_MS = 10 * 60_000;
/** response_url takes about 5 uses; progress through it is kept to a couple of edits. */
const MAX_RESPOND_UPDATES = 2;

export interface ReportRequest {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  userId: string;
  eventId: string;
}

/** Where the report's message lives: a channel message we can edit, or the private response. */
type Target = { kind: 'channel'; channel: string; ts: string } | { kind: 'private'; updates: number };

/**
 * `/events report <eventId>`: posts the queue position at once, edits it as the queue moves, then
 * replaces it with the report and attaches the full JSON where the app may upload files. Without
 * access to the channel it falls back to a private answer through `respond()`.
 */
export async function requestReport(deps: SlackDeps, request: ReportRequest): Promise<void> {
  const { client, respond, eventId } = request;
  const log = deps.logger.child({ command: 'report', eventId, channel: request.channelId });
  let target: Target;
  let lastPosition: number | undefined;
  let lastEdit = 0;
  let chain: Promise<unknown> = Promise.resolve();

  const show = (message: SlackMessage, final: boolean): Promise<unknown> => {
    chain = chain.then(async () => {
      if (target.kind === 'channel') {
        await client.chat.update({
          channel: target.channel,
          ts: target.ts,
          text: message.text,
          blocks: message.blocks,
        });
      } else if (final || target.updates < MAX_RESPOND_UPDATES) {
        target.updates += 1;
        await respondPrivately(respond, message, log, { replace_original: true });
      }
    });
    chain = chain.catch((error: unknown) => log.warn('Could not update the report message', { error }));
    return chain;
  };

  const onProgress = (progress: ReportProgress) => {
    if (progress.state === 'done' || !target) return;
    const position = progress.state === 'fetching' ? 0 : progress.position;
    const now = deps.clock.now();
    if (position === lastPosition || now - lastEdit < deps.progressIntervalMs) return;
    lastPosition = position;
    lastEdit = now;
    void show(reportProgressMessage(progress, eventId, deps.reportLimit), false);
  };

  const ticket = deps.ticketing.requestReport(eventId, {
    priority: 'interactive',
    signal: AbortSignal.timeout(REPORT_DEADLINE_MS),
    onProgress: (progress) => onProgress(progress),
  });
  // At shutdown a report still queued is given up, and its message says so; one being fetched finishes.
  const abandon = () => {
    if (ticket.progress().state === 'queued') ticket.cancel();
  };
  deps.work.stopping.addEventListener('abort', abandon, { once: true });
  const first = ticket.progress();
  const firstMessage = reportProgressMessage(first, eventId, deps.reportLimit);
  try {
    const posted = await client.chat.postMessage({
      channel: request.channelId,
      text: firstMessage.text,
      blocks: firstMessage.blocks,
    });
    target = { kind: 'channel', channel: posted.channel ?? request.channelId, ts: posted.ts as string };
  } catch (error) {
    log.info('Posting the report in the channel failed; answering privately', { slackError: slackErrorCode(error) });
    target = { kind: 'private', updates: 0 };
    await respondPrivately(respond, firstMessage, log);
  }
  lastPosition = first.state === 'queued' ? first.position : 0;
  lastEdit = deps.clock.now();

  let report: Awaited<typeof ticket.result>;
  try {
    report = await ticket.result;
  } catch (error) {
    if (deps.work.stopping.aborted) {
      log.info('A queued report was given up at shutdown');
      await show(reportAbandonedMessage(eventId), true);
      return;
    }
    log.warn('The report request failed', { error });
    await show(reportFailedMessage(eventId, userMessageFor(error)), true);
    return;
  } finally {
    deps.work.stopping.removeEventListener('abort', abandon);
  }

  let attachmentNote: Mrkdwn | undefined;
  if (target.kind === 'channel') {
    try {
      await client.filesUploadV2({
        channel_id: target.channel,
        thread_ts: target.ts,
        filename: `report-${eventId}.json`,
        title: `Report ${eventId}`,
        content: JSON.stringify(report, null, 2),
      });
    } catch (error) {
      const code = slackErrorCode(error);
      attachmentNote =
        code === 'missing_scope' || code === 'not_allowed_token_type'
          ? md`The full report could not be attached: the app lacks the files:write scope.`
          : md`The full report could not be attached this time.`;
      log.warn('Attaching the report file failed', { slackError: code, error });
    }
  } else {
    attachmentNote = md`Invite me to this channel (\`/invite @eventops\`) to get the full report as a file.`;
  }
  const eventName = typeof report.eventName === 'string' ? report.eventName : undefined;
  await show(reportMessage(report, { eventId, eventName, attachmentNote }), true);
  await deps.activity
    .recordReport({
      at: new Date(deps.clock.now()).toISOString(),
      userId: request.userId,
      eventId,
      ...(eventName ? { eventName } : {}),
    })
    .catch((error: unknown) => log.warn('Could not record the report in the store', { error }));
}
