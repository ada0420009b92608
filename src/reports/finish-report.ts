import type { ReportOutcome } from './queue/report-queue.js';
import type { ReportFlowDeps } from './report-flow.js';
import type { ReportAsk, ReportDelivery, ReportSurface, ReportView } from './report-surface.js';

/** The report in its message (the transport attaches the full JSON), or why it failed; then the activity. */
export async function finishReport<W>(
  deps: Pick<ReportFlowDeps, 'activity' | 'clock' | 'logger' | 'current'>,
  view: ReportView<W>,
  ask: ReportAsk,
  outcome: ReportOutcome,
): Promise<void> {
  const { eventId } = ask;
  if (outcome.kind === 'failed') {
    deps.logger.warn('The report request failed', { eventId, error: outcome.error });
    await view.show({ state: 'failed', error: outcome.error });
    return;
  }
  // What the record knows now: a report served from a cache shows a promo write made since.
  const report = deps.current ? await deps.current(eventId, outcome.report) : outcome.report;
  await view.show({ state: 'report', report });
  if (view.kind === 'result') return;
  const eventName = typeof report.eventName === 'string' ? report.eventName : undefined;
  await deps.activity
    .recordReport({
      at: new Date(deps.clock.now()).toISOString(),
      userId: ask.userId,
      eventId,
      ...(eventName ? { eventName } : {}),
    })
    .catch((error: unknown) => deps.logger.warn('Could not record the report in the store', { error, eventId }));
}

/**
 * Finishes a report on the replica that fetched it, for a request made on any replica: its message
 * (`view`, resumed from the delivery) is finished holding the message's lock.
 */
export async function deliverReport<W>(
  deps: Pick<ReportFlowDeps, 'activity' | 'clock' | 'logger' | 'current'>,
  exclusive: ReportSurface<W>['exclusive'],
  view: ReportView<W>,
  delivery: ReportDelivery<W>,
  outcome: ReportOutcome,
): Promise<void> {
  await exclusive(delivery.messageKey, () => finishReport(deps, view, delivery, outcome));
}
