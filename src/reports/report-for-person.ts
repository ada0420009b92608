import { type FiguresPolicy, figuresWithheld, type Person, type Withheld } from '../figures/may-show-figures.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { ReportStatus } from './report-status.js';
import type { ReportAsk, ReportSurface } from './report-surface.js';
import type { Reports } from './reports.js';

/** Who the person is (member, guest, of another organization), as the front end's platform says. */
type PersonOf = (userId: string) => Promise<Person>;

/**
 * Why the figures rule holds a report back from `userId` even in an answer they alone read (a
 * guest, a stranger, a person nobody could say of), or undefined: asked before any report call.
 */
async function heldFromPerson(
  deps: { personOf: PersonOf; figuresPolicy?: FiguresPolicy | undefined },
  userId: string,
): Promise<Withheld | undefined> {
  return figuresWithheld({ room: { kind: 'private' }, person: await deps.personOf(userId) }, deps.figuresPolicy);
}

/**
 * A person asked for an event's report, to be followed to a message (`surface`, opened only once
 * the person may have it): the figures rule about the person first, before anything is posted or
 * a report call is spent; then the report waits its turn in the person's share of the queue.
 * Returns why it was held back, or undefined once followed.
 */
export async function askForReport<W>(
  deps: { reports: Pick<Reports<W>, 'follow'>; personOf: PersonOf; figuresPolicy?: FiguresPolicy | undefined },
  ask: ReportAsk,
  surface: () => Promise<ReportSurface<W>>,
): Promise<{ withheld: Withheld } | undefined> {
  const withheld = await heldFromPerson(deps, ask.userId);
  if (withheld) return { withheld };
  await deps.reports.follow(ask, await surface());
  return undefined;
}

/**
 * A person's report for a front end that waits for it (an MCP tool): the same figures rule first,
 * then the same queue, in the person's turn and their limit of reports waiting; `onProgress` hears
 * each place while it waits. The caller still passes the report through the figures rule for
 * whoever reads the answer.
 */
export async function reportForPerson(
  deps: { reports: Pick<Reports<unknown>, 'fetchFor'>; personOf: PersonOf; figuresPolicy?: FiguresPolicy | undefined },
  ask: { eventId: string; userId: string },
  onProgress?: (status: ReportStatus) => void,
): Promise<{ withheld: Withheld } | { report: EventReport }> {
  const withheld = await heldFromPerson(deps, ask.userId);
  if (withheld) return { withheld };
  return { report: await deps.reports.fetchFor(ask.eventId, ask.userId, { onProgress }) };
}
