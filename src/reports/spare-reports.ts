import type { TicketingClient } from '../ticketing/client.js';
import type { CacheReadOptions } from '../ticketing/report-queue.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { SharedReportQueue } from '../ticketing/shared-report-queue.js';

/** Reports for background work (watches), only from report slots people leave. */
export interface SpareReports {
  /**
   * The report now if a slot is spare (nobody waiting and a slot free, the watches' share of slots
   * while people wait, or a fresh cached one); else undefined. With `readAfterMs` (the event's last
   * check), a cached report read at or before it is not served: it would be that check again.
   */
  spare(eventId: string, options?: CacheReadOptions): Promise<EventReport | undefined>;
}

/** From the replicas' shared queue when there is one (its rolling slots), else the client's own queue. */
export function spareReports(
  client: Pick<TicketingClient, 'spareReport' | 'fetchReport'>,
  shared: Pick<SharedReportQueue<unknown>, 'spare'> | undefined,
): SpareReports {
  return {
    spare: async (eventId, options = {}) =>
      shared
        ? shared.spare(eventId, (signal) => client.fetchReport(eventId, { priority: 'background', signal }), options)
        : client.spareReport(eventId, options),
  };
}
