import type { webApi } from '@slack/bolt';
import { figuresWithheld } from '../../figures/may-show-figures.js';
import type { Metrics } from '../../observability/metrics.js';
import { reportHeldMessage } from '../../render/report-answer.js';
import { replyView } from '../../reports/awaited-report.js';
import type { ReportRead } from '../../reports/event-record.js';
import { deliverReport, finishReport } from '../../reports/finish-report.js';
import type { ReportOutcome } from '../../reports/queue/report-queue.js';
import type { ReportJob } from '../../reports/queue/shared-report-job.js';
import type { ReportFlowDeps } from '../../reports/report-flow.js';
import { askForReport as askForPersonsReport } from '../../reports/report-for-person.js';
import type { ReportAsk, ReportSurface } from '../../reports/report-surface.js';
import type { KeyValueStore } from '../../store/key-value-store.js';
import type { EventReport } from '../../ticketing/schemas.js';
import { cancelledNow } from '../deps/cancelled-now.js';
import { sharingDoubt } from '../deps/conversation-audience.js';
import { conversationReader } from '../deps/figures-reader.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import type { ReportDelivery, ReportTarget } from '../replies/report-target.js';
import { respondPrivately } from '../replies/respond-safely.js';
import { type DeliveryDeps, reportSurface, resumedReport, type SlackReportRequest } from './report-view.js';
import { runReportView } from './run-report.js';

/**
 * A person asked for an event's report (`/events report`, a **Report** button, the report form):
 * the report use case follows it to them in one message, posted in the channel or privately. In a
 * channel shared with another organization it is private, with a button to post it there
 * (`postInChannel`: that button was clicked, with its once-only claim).
 */
export async function askForReport(
  deps: SlackDeps,
  request: SlackReportRequest & { postInChannel?: { once: string; owner: string } },
): Promise<void> {
  // Post in channel asks of the channel too, before a report is spent on it: a choice never
  // lifts a guest among its members, nor members that could not be read.
  if (request.postInChannel) {
    const channelHeld = figuresWithheld(
      await conversationReader(deps.audience, request.channelId, request.userId, { chosenAnyway: true }),
      deps.figuresPolicy,
    );
    if (channelHeld) {
      // Released before the answer: a click that follows it finds the button usable again.
      await deps.runs.finish(request.postInChannel.once, request.postInChannel.owner, false);
      await respondPrivately(request.respond, reportHeldMessage(request.label, channelHeld), deps.logger);
      return;
    }
  }
  // The person first (the use case's rule): a guest, a stranger or someone Slack could not say of
  // is told privately, before anything is posted in the channel or a report call is spent (and
  // asked again when the report comes: they may have been made a guest meanwhile).
  // A cancelled event's report says so, wherever it was asked for (the catalog's entry, no call).
  const cancelled = cancelledNow(deps.catalog, request.eventId) ? { cancelled: true as const } : {};
  const ask = { eventId: request.eventId, label: request.label, userId: request.userId, ...cancelled };
  const personOf = (userId: string) => deps.audience.person(userId, request.client);
  const held = await askForPersonsReport({ ...deps, personOf }, ask, async () => {
    // Post in channel: the wait shows privately, the report goes to the channel when it comes.
    const keepPrivate = request.postInChannel
      ? undefined
      : await sharingDoubt(deps.audience, request.channelId, request.client, deps.figuresPolicy);
    const transport: DeliveryDeps = {
      reportLimit: deps.reportLimit,
      logger: deps.logger,
      metrics: deps.metrics,
      exclusive: deps.reports.exclusive,
      insights: deps.insights,
      audience: deps.audience,
      figuresPolicy: deps.figuresPolicy,
      runs: deps.runs,
      streams: deps.reportStreams,
    };
    return reportSurface(transport, { ...request, keepPrivate, ...cancelled });
  });
  if (held) {
    if (request.postInChannel) await deps.runs.finish(request.postInChannel.once, request.postInChannel.owner, false);
    await respondPrivately(request.respond, reportHeldMessage(request.label, held.withheld), deps.logger);
  }
}

/**
 * A workflow step asked for an event's report: it waits in the same queue, in the same limit, as a
 * person's, and the run is completed by whichever replica fetches it (`surface` is the run's).
 */
export function askForStepReport(deps: SlackDeps, ask: ReportAsk, surface: ReportSurface<ReportTarget>): Promise<void> {
  return deps.reports.follow(ask, surface);
}

/**
 * An event's report for a caller that needs its figures (a promo code looked up in it), in
 * `requester`'s turn within the report limit, as a person's: from the shared queue with replicas,
 * whichever replica fetches it.
 */
export function reportFor(
  deps: SlackDeps,
  eventId: string,
  requester: string,
  options: { fresh?: boolean | undefined } = {},
): Promise<EventReport> {
  return deps.reports.fetchFor(eventId, requester, options);
}

/**
 * The event's report at hand, at no report call (see `Reports.atHand`): the freshest of a watch's
 * last check and the caches, read at most one report window ago unless the caller accepts older.
 */
export function reportAtHand(
  deps: SlackDeps,
  eventId: string,
  options: { maxAgeMs?: number } = {},
): Promise<ReportRead | undefined> {
  return deps.reports.atHand(eventId, options);
}

/** The report at hand's figures alone (see `reportAtHand`). */
export async function reportFiguresAtHand(deps: SlackDeps, eventId: string): Promise<EventReport | undefined> {
  return (await reportAtHand(deps, eventId))?.report;
}

/** The shared queue's `deliver`: each report finished in Slack (`client` exists once the app does), its wait measured. */
export function slackReportDelivery(
  deps: Parameters<typeof deliverReportInSlack>[0] & { metrics: Pick<Metrics, 'reportWait'> },
  client: () => webApi.WebClient,
): (job: ReportJob<ReportDelivery>, outcome: ReportOutcome) => Promise<void> {
  return (job, outcome) => {
    deps.metrics.reportWait.observe(Math.max(0, deps.clock.now() - job.requestedAt) / 1000);
    return deliverReportInSlack(deps, client(), job.delivery, outcome);
  };
}

/**
 * Finishes a report on the replica that fetched it (the shared queue's `deliver`), for a request
 * made on any replica: a person's message is edited holding its lock; a workflow run is completed
 * and a waiting caller's report left in the store, with no lock (given once, nothing to order: a
 * lock Redis refused must not leave a run unfinished).
 */
export function deliverReportInSlack(
  /** Besides the Slack side: the report flow's, and the store (its lock orders a message's edits; a waiting caller's report is left in it). */
  deps: DeliveryDeps & Pick<ReportFlowDeps, 'activity' | 'clock' | 'logger'> & { store: KeyValueStore },
  client: webApi.WebClient,
  delivery: ReportDelivery,
  outcome: ReportOutcome,
): Promise<void> {
  const { where } = delivery;
  if (where.kind === 'workflow')
    return finishReport(
      deps,
      runReportView(client, delivery, where, deps.logger, { audience: deps.audience, policy: deps.figuresPolicy }),
      delivery,
      outcome,
    );
  if (where.kind === 'reply') return finishReport(deps, replyView(deps.store, where, deps.logger), delivery, outcome);
  const exclusive = deps.store.exclusive.bind(deps.store);
  const { view, exclusive: locked } = resumedReport(
    client,
    {
      reportLimit: deps.reportLimit,
      logger: deps.logger,
      exclusive,
      insights: deps.insights,
      audience: deps.audience,
      figuresPolicy: deps.figuresPolicy,
      runs: deps.runs,
      streams: deps.streams,
    },
    { ...delivery, where },
  );
  return deliverReport(deps, locked, view, { ...delivery, where }, outcome);
}
