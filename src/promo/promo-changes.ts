import { randomUUID } from 'node:crypto';
import type { EventCatalog } from '../catalog/event-catalog.js';
import type { Logger } from '../logger.js';
import type { ActivityStore, PromoChangeOutcome, PromoChangeRecord } from '../store/activity-store.js';
import type { CallOptions, PromoUpdate, TicketingClient } from '../ticketing/client.js';
import { isTicketingError, ValidationError } from '../ticketing/errors.js';
import { promoQuantityProblem } from '../ticketing/promo-quantity.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import type { PendingPromoChange, PendingPromoChanges } from './pending-promo-changes.js';

/** What the promo use cases need; nothing of Slack. */
export interface PromoDeps {
  ticketing: Pick<TicketingClient, 'updatePromoQuantity'>;
  /** Where events are found (the shared catalog). */
  events: Pick<EventCatalog, 'lookup'>;
  pending: PendingPromoChanges;
  activity: ActivityStore;
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
    });
    return { kind: 'confirm', event, change };
  } catch (error) {
    deps.logger.info('Preparing a promo change failed', { error });
    return { kind: 'failed', error };
  }
}

export type Refusal = 'unknown' | 'used' | 'expired' | 'not-yours' | 'not-editor';

export type ConfirmResult =
  | { kind: 'refused'; refusal: Refusal }
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
    await audit(deps, log, request.userId, change, 'refused', refusal);
    return { kind: 'refused', refusal };
  };
  if (!change) return refuse('unknown');
  if (change.requestedBy !== request.userId) return refuse('not-yours');
  if (deps.clock.now() >= change.expiresAt) return refuse('expired');
  if (!(await deps.isEditor(request.userId))) return refuse('not-editor');
  if (!(await deps.pending.claim(change.id, `${request.userId}:${randomUUID()}`))) return refuse('used');

  try {
    const update = await deps.ticketing.updatePromoQuantity(
      change.eventId,
      change.promoId,
      change.quantity,
      deps.interactive(),
    );
    log.info('Promo quantity changed', { eventId: change.eventId, promoId: change.promoId, quantity: update.quantity });
    await audit(deps, log, request.userId, change, 'updated');
    return { kind: 'updated', change, update };
  } catch (error) {
    const unknown = isTicketingError(error) && error.code === 'outcome_unknown';
    log.warn(unknown ? 'A promo change may or may not have been applied' : 'A promo change failed', { error });
    await audit(deps, log, request.userId, change, unknown ? 'unknown' : 'failed', errorCode(error));
    return unknown ? { kind: 'unknown', change, error } : { kind: 'failed', change, error };
  }
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

/** The audit record; a store failure here is logged as an error, never turned into the change's outcome. */
async function audit(
  deps: PromoDeps,
  log: Logger,
  userId: string,
  change: PendingPromoChange | undefined,
  outcome: PromoChangeOutcome,
  reason?: string,
): Promise<void> {
  const record: PromoChangeRecord = {
    at: new Date(deps.clock.now()).toISOString(),
    userId,
    channelId: change?.channelId ?? '',
    eventId: change?.eventId ?? '',
    promoId: change?.promoId ?? '',
    quantity: change?.quantity ?? 0,
    outcome,
    ...(reason ? { error: reason } : {}),
    ...(change ? { changeId: change.id } : {}),
  };
  try {
    await deps.activity.recordPromoChange(record);
  } catch (error) {
    log.error('Could not record a promo change in the audit trail', { error, outcome });
  }
}
