import type { App } from '@slack/bolt';
import { closeEvents, searchEvents } from '../../../catalog/event-search.js';
import { isListedUpcoming } from '../../../catalog/is-upcoming.js';
import { parsePromoRef } from '../../../promo/promo-codes.js';
import { markedEventOption } from '../../../render/cancelled-words.js';
import { eventLabel, noEventMessage } from '../../../render/event-blocks.js';
import {
  CHANGE_PROMO_SHORTCUT,
  closeEventsGroup,
  EVENT_PICKER_ACTION,
  eventOption,
  FIELDS,
  MAX_OPTIONS,
  PROMO_MODAL,
  REPORT_MODAL,
  WATCH_MODAL,
} from '../../../render/modal-views.js';
import { parseId } from '../../../ticketing/ids.js';
import { parsePromoQuantity } from '../../../ticketing/promo-quantity.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { decodeOrigin } from '../../modals/modal-openers.js';
import { privateAnswer } from '../../modals/private-answer.js';
import { openPromoFormFor, promoFormAckView, promoFormReply } from '../../modals/promo-form.js';
import { ackFirst } from '../../replies/ack-first.js';
import { askForReport } from '../../reports/ask-for-report.js';
import { requestPromoChange } from '../commands/request-promo-change.js';
import { eventInMemory } from './event-in-memory.js';
import { codeFoundAfterReview, promoFormErrors } from './promo-form-check.js';

export type ViewState = Record<
  string,
  Record<string, { value?: string | null; selected_option?: { value?: string } | null }>
>;

const field = (state: ViewState, name: keyof typeof FIELDS) => state[FIELDS[name].block]?.[FIELDS[name].action];

/** How long the picker waits for a crawl when none is in memory (a cold start): usually enough. */
const FIRST_CRAWL_WAIT_MS = 500;

/** How long a report picked before the first crawl waits for the event's name before going ahead without it. */
const NAME_WAIT_MS = 2_000;

/** The forms whose event must be upcoming (not over, not cancelled): their pickers offer no other. */
const UPCOMING_ONLY: ReadonlySet<string> = new Set([PROMO_MODAL, WATCH_MODAL]);

/** The form a picker's typeahead comes from (its view's callback id), or '' when Slack sends none. */
const pickerOf = (body: object): string => {
  const view = 'view' in body ? (body.view as { callback_id?: unknown } | undefined) : undefined;
  return typeof view?.callback_id === 'string' ? view.callback_id : '';
};

/** The modals, their event picker (typeahead from the catalog) and the global shortcut. */
export function registerEventModals(app: App, deps: SlackDeps): void {
  app.options(EVENT_PICKER_ACTION, async ({ ack, body }) => {
    const query = 'value' in body && typeof body.value === 'string' ? body.value : '';
    // Slack waits about 3 s for options: answer from the catalog in memory, or from a first crawl
    // that finishes in a moment; it goes on without us, so the next keystroke finds events.
    const signal = AbortSignal.timeout(FIRST_CRAWL_WAIT_MS);
    const snapshot =
      deps.catalog.current() ??
      (await deps.catalog.snapshot({ signal }).catch((error: unknown) => {
        if (!signal.aborted) deps.logger.warn('The event picker could not read the catalog', { error });
        return undefined;
      }));
    let options: ReturnType<typeof eventOption>[] = [];
    let closest: ReturnType<typeof closeEventsGroup> | undefined;
    if (snapshot) {
      try {
        const now = deps.clock.now();
        // Watching and promoting need an upcoming event: other pickers offer the rest, marked.
        const upcomingOnly = !query.trim() || UPCOMING_ONLY.has(pickerOf(body));
        const offered = snapshot.events.filter((event) => !upcomingOnly || isListedUpcoming(event, now));
        const option = upcomingOnly ? eventOption : markedEventOption;
        const events = query.trim() ? searchEvents(offered, query).map((match) => match.event) : offered;
        options = events.slice(0, MAX_OPTIONS).map(option);
        // Nothing matches: say so in the list, over the names that come closest (if any come close).
        const close = options.length === 0 && query.trim() ? closeEvents(offered, query).map(option) : [];
        if (close.length > 0) closest = closeEventsGroup(query, close);
      } catch (error) {
        deps.logger.warn('The event picker could not search the catalog', { error });
      }
    }
    await ack(closest ? { option_groups: [closest] } : { options });
  });

  app.shortcut(CHANGE_PROMO_SHORTCUT, async ({ ack, shortcut, client }) => {
    await ackFirst(ack);
    await openPromoFormFor(deps, client, {
      triggerId: shortcut.trigger_id,
      channelId: undefined,
      userId: shortcut.user.id,
    });
  });

  app.view(PROMO_MODAL, async ({ ack, view, body, client }) => {
    const state = view.state.values as ViewState;
    const eventId = field(state, 'event')?.selected_option?.value ?? '';
    const promoText = (field(state, 'promo')?.value ?? '').trim();
    const quantityText = (field(state, 'quantity')?.value ?? '').trim();
    const errors: Record<string, string> = {};
    if (!eventId) errors[FIELDS.event.block] = 'Pick an event.';
    const promo = parsePromoRef(promoText);
    if ('problem' in promo) errors[FIELDS.promo.block] = `${promo.problem.slice(0, 140)}.`;
    const quantity = parsePromoQuantity(quantityText);
    if ('problem' in quantity) errors[FIELDS.quantity.block] = quantity.problem;
    // What is known without a report call (a cancelled event, a code close to a known one): on its field.
    if (Object.keys(errors).length === 0 && !('problem' in promo))
      Object.assign(errors, await promoFormErrors(deps, { eventId, promo, userId: body.user.id }));
    if (Object.keys(errors).length > 0) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    const origin = decodeOrigin(view.private_metadata);
    // The form stays open, saying where the confirmation goes, then where it went.
    await ackFirst(() => ack({ response_action: 'update', view: promoFormAckView(origin) }));
    if ('problem' in promo || 'problem' in quantity) return;
    const reply = promoFormReply(deps, client, { origin, userId: body.user.id, viewId: body.view?.id });
    // A code nothing at hand names is looked up now: one the report does not name brings the form back as typed.
    const form = { eventId, promo, quantityText, userId: body.user.id, viewId: body.view?.id };
    if (!(await codeFoundAfterReview(deps, client, reply, { ...form, privateMetadata: view.private_metadata }))) return;
    await requestPromoChange(deps, client, reply, {
      userId: body.user.id,
      channelId: origin.channelId ?? '',
      target: { id: eventId },
      promo,
      quantity: quantity.quantity,
    });
  });

  app.view(REPORT_MODAL, async ({ ack, view, body, client, context }) => {
    const state = view.state.values as ViewState;
    const eventId = field(state, 'event')?.selected_option?.value ?? '';
    if (!eventId) {
      await ack({ response_action: 'errors', errors: { [FIELDS.event.block]: 'Pick an event.' } });
      return;
    }
    // Field errors only from what is in memory: a crawl under way (a cold start, another replica's
    // turn) must not keep Slack waiting, or it shows an error while the report is queued anyway.
    const known = eventInMemory(deps, eventId);
    if (known === 'unlisted') {
      await ack({ response_action: 'errors', errors: { [FIELDS.event.block]: 'That event is no longer listed.' } });
      return;
    }
    await ackFirst(ack);
    const origin = decodeOrigin(view.private_metadata);
    const respond = privateAnswer(client, origin, body.user.id);
    let event = known;
    if (!event) {
      // Not crawled yet: wait a little for its name; the report itself needs only the id.
      const found = await deps.catalog
        .lookup(eventId, { ...deps.interactive(), signal: AbortSignal.timeout(NAME_WAIT_MS) })
        .catch(() => undefined);
      if (found && !found.event) {
        const message = noEventMessage({ target: eventId, asOf: found.asOf, refreshPeriodMs: deps.catalog.periodMs });
        await respond({ text: message.text, blocks: message.blocks }).catch((error: unknown) =>
          deps.logger.warn('Could not say that the picked event is gone', { error }),
        );
        return;
      }
      event = found?.event;
    }
    const id = event?.id ?? parseId('event', eventId);
    await askForReport(deps, {
      teamId: context.teamId ?? context.enterpriseId,
      respond,
      client,
      channelId: origin.channelId ?? body.user.id,
      userId: body.user.id,
      eventId: id,
      label: eventLabel(event ?? { id, name: undefined }),
    });
  });
}
