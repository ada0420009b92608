import type { webApi } from '@slack/bolt';
import { deliverReport } from '../reports/finish-report.js';
import { inProcessReports } from '../reports/in-process-reports.js';
import type { ReportFlow, ReportFlowDeps } from '../reports/report-flow.js';
import type { ReportAsk, ReportSurface } from '../reports/report-surface.js';
import { sharedReports } from '../reports/shared-reports.js';
import type { ReportOutcome } from '../ticketing/shared-report-queue.js';
import type { SharedReports, SlackDeps } from './deps.js';
import {
  type ReportDelivery,
  type ReportTarget,
  type ReportTransport,
  reportMessages,
  reportSurface,
  type SlackReportRequest,
} from './report-message.js';

/** The report flow of this deployment: the replicas' shared queue when there is one, else the client's own. */
function reportFlow(deps: SlackDeps): ReportFlow<ReportTarget> {
  const base: ReportFlowDeps = {
    activity: deps.activity,
    clock: deps.clock,
    logger: deps.logger,
    stopping: deps.work.stopping,
    progressIntervalMs: deps.progressIntervalMs,
  };
  return deps.sharedReports
    ? sharedReports({ ...base, queue: deps.sharedReports.queue })
    : inProcessReports({ ...base, ticketing: deps.ticketing, metrics: deps.metrics });
}

/**
 * A person asked for an event's report (`/events report`, a **Report** button, the report form):
 * the report use case follows it to them in one message, posted in the channel or privately.
 */
export function askForReport(deps: SlackDeps, request: SlackReportRequest): Promise<void> {
  const transport: ReportTransport = {
    reportLimit: deps.reportLimit,
    logger: deps.logger,
    metrics: deps.metrics,
    exclusive: deps.sharedReports?.exclusive,
  };
  const ask = { eventId: request.eventId, label: request.label, userId: request.userId };
  return reportFlow(deps).follow(ask, reportSurface(transport, request));
}

/**
 * A workflow step asked for an event's report: it waits in the same queue, in the same limit, as a
 * person's, and the run is completed by whichever replica fetches it (`surface` is the run's).
 */
export function askForStepReport(deps: SlackDeps, ask: ReportAsk, surface: ReportSurface<ReportTarget>): Promise<void> {
  return reportFlow(deps).follow(ask, surface);
}

/** Finishes a report on the replica that fetched it (the shared queue's `deliver`), for a request made on any replica. */
export function deliverReportInSlack(
  deps: Pick<ReportFlowDeps, 'activity' | 'clock' | 'logger'> & Pick<ReportTransport, 'reportLimit'>,
  client: webApi.WebClient,
  exclusive: SharedReports['exclusive'],
  delivery: ReportDelivery,
  outcome: ReportOutcome,
): Promise<void> {
  const messages = reportMessages(client, { reportLimit: deps.reportLimit, logger: deps.logger, exclusive });
  return deliverReport(deps, messages, delivery, outcome);
}
