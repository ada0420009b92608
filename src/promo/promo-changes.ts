import { randomUUID } from 'node:crypto';
import type { EventCatalog } from '../catalog/event-catalog.js';
import { isCancelled } from '../catalog/is-upcoming.js';
import type { Logger } from '../logger.js';
import type { Reports } from '../reports/reports.js';
import type { ActivityStore, PromoChangeOutcome, PromoChangeRecord } from '../store/activity-store.js';
import type { CallOptions, PromoUpdate, TicketingClient } from '../ticketing/client.js';
import { isTicketingError, ValidationError } from '../ticketing/errors.js';
import { promoQuantityProblem } from '../ticketing/promo-quantity.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import type { PendingPromoChange, PendingPromoChanges } from './pending-promo-changes.js';
import { type PromoCodeSources, type PromoRef, resolvePromo } from './promo-codes.js';

/** What the promo use cases need; nothing of Slack. */
export interface PromoDeps {
  ticketing: Pick<TicketingClient, 'updatePromoQuantity'>;
  /** Where events are found (the shared catalog). */
  events: Pick<EventCatalog, 'lookup'>;
  pending: PendingPromoChanges;
  activity: ActivityStore;
  /** What is known about each event now: every write goes into it, and a confirmation is checked against it. */
  record: Pick<Reports<unknown>, 'wrote' | 'quantityNow'>;
  /** Whether the person may change promo codes now (checked on every step). */
  isEditor(userId: string): Promise<boolean>;
  /** Options for a call a person is waiting for (deadline, priority). */
  interactive(): CallOptions;
  clock: Clock;
  logger: Logger;
}

export interface ProposeRequest {
  userId: string;
  channelId: string;
  eventId: string;
  promoId: string;
  quantity: number;
  /** The code people know, when a report named it. */
  code?: string | undefined;
  /** The quantity as a report read now names it. */
  previousQuantity?: number | undefined;
  /** How often it was redeemed, as the same report names it. */
  redeemed?: number | undefined;
}

export type ProposeResult =
  | { kind: 'not-editor' }
  | { kind: 'no-event'; asOf: number }
  | { kind: 'failed'; error: unknown }
  | { kind: 'confirm'; event: TicketingEvent; change: PendingPromoChange };

/** `/events promo`: checks who asks and what, then stores the change to be confirmed. */
export async function proposePromoChange(deps: PromoDeps, request: ProposeRequest): Promise<ProposeResult> {
  if (!(await deps.isEditor(request.userId))) {
    deps.logger.info('Refused a promo change from a non-editor', { user: request.userId });
    return { kind: 'not-editor' };
  }
  const problem = promoQuantityProblem(request.quantity);
  if (problem) return { kind: 'failed', error: new ValidationError(problem) };
  try {
    const found = await deps.events.lookup(request.eventId, deps.interactive());
    const event = found.event;
    if (!event) return { kind: 'no-event', asOf: found.asOf };
    const change = await deps.pending.create({
      requestedBy: request.userId,
      channelId: request.channelId,
      eventId: event.id,
      eventName: event.name,
      promoId: request.promoId,
      quantity: request.quantity,
      code: request.code,
      previousQuantity: request.previousQuantity,
      redeemed: request.redeemed,
    });
    return { kind: 'confirm', event, change };
  } catch (error) {
    deps.logger.info('Preparing a promo change failed', { error });
    return { kind: 'failed', error };
  }
}

export type Refusal = 'unknown' | 'used' | 'expired' | 'not-yours' | 'not-editor' | 'event-cancelled' | 'changed';

export type ConfirmResult =
  | { kind: 'refused'; refusal: Refusal }
  /**
   * The quantity the confirmation showed is no longer the quantity now (a write since): nothing was
   * written; `change` asks again with the quantity now, the one clicked is used up.
   */
  | { kind: 'changed'; event: TicketingEvent; change: PendingPromoChange; shown: number }
  | { kind: 'updated'; change: PendingPromoChange; update: PromoUpdate }
  | { kind: 'failed'; change: PendingPromoChange; error: unknown }
  | { kind: 'unknown'; change: PendingPromoChange; error: unknown };

export interface ConfirmRequest {
  /** The id the button carried: outside input. */
  changeId: string;
  userId: string;
}

/**
 * The Confirm button: only the person who asked, still an editor, before expiry, once. Every
 * refusal and every outcome is audited; a write that was never answered is `unknown`, not failed.
 */
export async function confirmPromoChange(deps: PromoDeps, request: ConfirmRequest): Promise<ConfirmResult> {
  const log = deps.logger.child({ promoChange: request.changeId.slice(0, 40), user: request.userId });
  const change = await deps.pending.get(request.changeId);
  const refuse = async (refusal: Refusal): Promise<ConfirmResult> => {
    log.warn('Refused a promo confirmation', { refusal });
    await audit(deps, log, confirmationRecord(request.userId, change, 'refused', refusal));
    return { kind: 'refused', refusal };
  };
  if (!change) return refuse('unknown');
  if (change.requestedBy !== request.userId) return refuse('not-yours');
  if (deps.clock.now() >= change.expiresAt) return refuse('expired');
  if (!(await deps.isEditor(request.userId))) return refuse('not-editor');
  // Cancelled since it was proposed: a code of a cancelled event is not changed. A catalog that
  // cannot answer now leaves the change as proposed.
  const found = await deps.events.lookup(change.eventId, deps.interactive()).catch(() => undefined);
  if (found?.event && isCancelled(found.event)) return refuse('event-cancelled');
  // Confirmed from a quantity older than a write since (here or on another replica): asked again
  // with the quantity now, never written over a value the person did not see.
  const now = await deps.record.quantityNow(change.eventId, change.promoId).catch(() => undefined);
  const shown = change.previousQuantity;
  const stale = now !== undefined && shown !== undefined && now.quantity !== shown;
  if (!(await deps.pending.claim(change.id, `${request.userId}:${randomUUID()}`))) return refuse('used');
  if (stale) {
    if (!found?.event || shown === undefined) return refuse('changed');
    const { id: _id, createdAt: _created, expiresAt: _expires, ...asked } = change;
    const again = await deps.pending.create({ ...asked, previousQuantity: now.quantity });
    log.info('A promo confirmation showed a quantity changed since; asked again', { shown });
    await audit(deps, log, confirmationRecord(request.userId, change, 'refused', 'changed'));
    return { kind: 'changed', event: found.event, change: again, shown };
  }

  const written = await writeAudited(
    deps,
    log,
    { eventId: change.eventId, promoId: change.promoId, quantity: change.quantity },
    { change: 'promo change', changed: 'Promo quantity changed' },
    (outcome, reason) => confirmationRecord(request.userId, change, outcome, reason),
  );
  return { ...written, change };
}

/** Cancel: only the person who asked; it uses the change up, so a later Confirm does nothing. */
export async function cancelPromoChange(
  deps: PromoDeps,
  request: ConfirmRequest,
): Promise<{ kind: 'cancelled' } | { kind: 'refused'; refusal: Refusal }> {
  const change = await deps.pending.get(request.changeId);
  if (!change) return { kind: 'refused', refusal: 'unknown' };
  if (change.requestedBy !== request.userId) return { kind: 'refused', refusal: 'not-yours' };
  if (!(await deps.pending.claim(change.id, `${request.userId}:cancel:${randomUUID()}`))) {
    return { kind: 'refused', refusal: 'used' };
  }
  return { kind: 'cancelled' };
}

function errorCode(error: unknown): string {
  if (isTicketingError(error)) return error.code;
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return 'internal';
}

export interface WorkflowPromoRequest {
  /** The person running the workflow (Slack's `user_context`: the workflow's author cannot set it). */
  userId: string;
  eventId: string;
  /** The promo code as the workflow names it: its id, or its code. */
  promo: PromoRef;
  quantity: number;
  /** The step run (`function_execution_id`): one run is applied at most once, even delivered twice. */
  executionId: string;
}

/** The promo code a workflow's change is about, and its quantity as the latest report at hand named it. */
export interface WorkflowPromoTarget {
  promoId: string;
  code: string | undefined;
  previousQuantity: number | undefined;
}

export type WorkflowPromoResult =
  | { kind: 'refused'; refusal: Extract<Refusal, 'not-editor' | 'used'> }
  /** A code that the event's report (at hand, or fetched for this) names with no id: nothing sent. */
  | { kind: 'no-promo'; code: string; known: string[] }
  | { kind: 'failed'; error: unknown }
  | ({ kind: 'updated'; update: PromoUpdate } & WorkflowPromoTarget)
  | ({ kind: 'unknown'; error: unknown } & WorkflowPromoTarget);

/**
 * A promo change asked for by a Workflow Builder step. There is no Confirm button: the workflow's
 * author chose the step and the person running it started the run. The rest is Confirm's: the
 * person must be an editor (checked first, so a non-editor's code costs no report call), a run is
 * applied once, every write and refusal is audited (`via: 'workflow'`), and a write that was
 * never answered is `unknown`, not failed. A code's id, and the quantity before, come from the
 * event's report at hand, or one fetched where `sources` can.
 */
export async function applyWorkflowPromoChange(
  deps: PromoDeps,
  sources: PromoCodeSources,
  request: WorkflowPromoRequest,
): Promise<WorkflowPromoResult> {
  const log = deps.logger.child({ workflowStep: request.executionId.slice(0, 40), user: request.userId });
  const record = (
    promoId: string,
    outcome: PromoChangeOutcome,
    reason?: string,
    code?: string,
    previousQuantity?: number,
  ): Omit<PromoAuditRecord, 'at'> => ({
    userId: request.userId,
    channelId: '',
    eventId: request.eventId,
    promoId,
    quantity: request.quantity,
    ...(previousQuantity === undefined ? {} : { previousQuantity }),
    outcome,
    ...(reason ? { error: reason } : {}),
    ...(code ? { code } : 'code' in request.promo ? { code: request.promo.code } : {}),
    via: 'workflow',
    executionId: request.executionId,
  });
  if (!(await deps.isEditor(request.userId))) {
    log.warn('Refused a workflow promo change from a non-editor');
    await audit(deps, log, record('id' in request.promo ? request.promo.id : '', 'refused', 'not-editor'));
    return { kind: 'refused', refusal: 'not-editor' };
  }
  const problem = promoQuantityProblem(request.quantity);
  if (problem) return { kind: 'failed', error: new ValidationError(problem) };

  let target: WorkflowPromoTarget;
  try {
    const found = await promoTarget(sources, request.eventId, request.promo);
    if ('notNamed' in found) return { kind: 'no-promo', code: found.notNamed, known: found.known };
    target = found;
  } catch (error) {
    log.info('Looking up a promo code for a workflow failed', { error });
    return { kind: 'failed', error };
  }
  // Slack may deliver one run twice: only the first delivery writes (and audits) anything.
  if (!(await deps.pending.claim(`workflow:${request.executionId}`, `${request.userId}:${randomUUID()}`))) {
    log.info('A workflow promo change was delivered again; it is applied once');
    return { kind: 'refused', refusal: 'used' };
  }
  const written = await writeAudited(
    deps,
    log,
    { eventId: request.eventId, promoId: target.promoId, quantity: request.quantity },
    { change: 'workflow promo change', changed: 'Promo quantity changed by a workflow' },
    (outcome, reason) => record(target.promoId, outcome, reason, target.code, target.previousQuantity),
  );
  return written.kind === 'failed' ? written : { ...written, ...target };
}

/**
 * Sends a promo write and audits what came of it: `updated`, `unknown` (sent and never answered:
 * it may or may not have been applied, never reported as failed) or `failed`.
 */
async function writeAudited(
  deps: PromoDeps,
  log: Logger,
  write: { eventId: string; promoId: string; quantity: number },
  words: { change: string; changed: string },
  recordOf: (outcome: PromoChangeOutcome, reason?: string) => Omit<PromoAuditRecord, 'at'>,
): Promise<
  { kind: 'updated'; update: PromoUpdate } | { kind: 'unknown'; error: unknown } | { kind: 'failed'; error: unknown }
> {
  try {
    const update = await deps.ticketing.updatePromoQuantity(
      write.eventId,
      write.promoId,
      write.quantity,
      deps.interactive(),
    );
    log.info(words.changed, { ...write, quantity: update.quantity });
    // Known at once, on every replica: a change asked for next reads this quantity as the one before.
    await deps.record
      .wrote(write.eventId, write.promoId, update.quantity)
      .catch((error: unknown) => log.warn('Could not record a promo write in the event record', { error }));
    await audit(deps, log, recordOf('updated'));
    return { kind: 'updated', update };
  } catch (error) {
    const unknown = isTicketingError(error) && error.code === 'outcome_unknown';
    log.warn(unknown ? `A ${words.change} may or may not have been applied` : `A ${words.change} failed`, { error });
    await audit(deps, log, recordOf(unknown ? 'unknown' : 'failed', errorCode(error)));
    return unknown ? { kind: 'unknown', error } : { kind: 'failed', error };
  }
}

/** The promo code's id (a code looked up in a report, now or earlier), with its quantity as a report read now names it. */
async function promoTarget(
  sources: PromoCodeSources,
  eventId: string,
  ref: PromoRef,
): Promise<WorkflowPromoTarget | { notNamed: string; known: string[] }> {
  // Nobody to tell while a report is fetched: the run simply waits its turn. A run has nobody to
  // confirm either: an id is written as given, with no report read for its quantity now.
  const resolved = await resolvePromo(sources, eventId, ref, async () => {}, false);
  if (resolved.kind !== 'found') return { notNamed: resolved.code, known: resolved.known };
  return { promoId: resolved.id, code: resolved.code, previousQuantity: resolved.previousQuantity };
}

/**
 * An audit record that also names what people know: the event's name and the promo code, when
 * known (records stored before either was kept lack them).
 */
export interface PromoAuditRecord extends PromoChangeRecord {
  eventName?: string;
  code?: string;
}

/** The audit record of a confirmation (or of a click that named none). */
function confirmationRecord(
  userId: string,
  change: PendingPromoChange | undefined,
  outcome: PromoChangeOutcome,
  reason?: string,
): Omit<PromoAuditRecord, 'at'> {
  return {
    userId,
    channelId: change?.channelId ?? '',
    eventId: change?.eventId ?? '',
    ...(change?.eventName ? { eventName: change.eventName } : {}),
    ...(change?.code ? { code: change.code } : {}),
    promoId: change?.promoId ?? '',
    quantity: change?.quantity ?? 0,
    ...(change?.previousQuantity === undefined ? {} : { previousQuantity: change.previousQuantity }),
    outcome,
    ...(reason ? { error: reason } : {}),
    ...(change ? { changeId: change.id } : {}),
  };
}

/** The audit record; a store failure here is logged as an error, never turned into the change's outcome. */
async function audit(deps: PromoDeps, log: Logger, record: Omit<PromoAuditRecord, 'at'>): Promise<void> {
  try {
    const stored: PromoAuditRecord = { at: new Date(deps.clock.now()).toISOString(), ...record };
    await deps.activity.recordPromoChange(stored);
  } catch (error) {
    log.error('Could not record a promo change in the audit trail', { error, outcome: record.outcome });
  }
}
