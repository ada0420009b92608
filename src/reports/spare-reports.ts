import type { TicketingClient } from '../ticketing/client.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { SharedReportQueue } from '../ticketing/shared-report-queue.js';

/** Reports for background work (watches), only from report slots people leave. */
export interface SpareReports {
  /** The report now if a slot is spare (nobody waiting, a slot free, or a fresh cached one); else undefined. */
  spare(eventId: string): Promise<EventReport | undefined>;
}

/** From the replicas' shared queue when there is one (its rolling slots), else the client's own queue. */
export function spareReports(
  client: Pick<TicketingClient, 'spareReport' | 'fetchReport'>,
  shared: Pick<SharedReportQueue<unknown>, 'spare'> | undefined,
): SpareReports {
  return {
    spare: async (eventId) =>
      shared
        ? shared.spare(eventId, (signal) => client.fetchReport(eventId, { priority: 'background', signal }))
        : client.spareReport(eventId),
  };
}
