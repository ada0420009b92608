import type { App } from '@slack/bolt';
import { isCancelled, isUpcoming } from '../../../catalog/is-upcoming.js';
import { type Shown, showFigures } from '../../../figures/may-show-figures.js';
import type { Comparables } from '../../../forecast/comparables.js';
import type { Forecast } from '../../../forecast/forecast.js';
import { type SlackMessage, warningMessage } from '../../../render/block-kit.js';
import { cancelledEventFieldError } from '../../../render/cancelled-words.js';
import { eventLabel } from '../../../render/event-blocks.js';
import {
  EVENT_PICKER_ACTION,
  FIELDS,
  PERSONAL_VALUE,
  WATCH_MODAL,
  watchFormAnswerView,
  watchModalView,
} from '../../../render/modal-views.js';
import { clip, type Mrkdwn, md } from '../../../render/mrkdwn.js';
import { fetchingReportMessage, fetchingReportWords, reportCurrency } from '../../../render/report-blocks.js';
import { watchAnswer, watchHeldMessage } from '../../../render/watch-outcome-blocks.js';
import { withheldWords } from '../../../render/withheld-words.js';
import { parseId } from '../../../ticketing/ids.js';
import type { EventReport } from '../../../ticketing/schemas.js';
import { setWatch } from '../../../watches/set-watch.js';
import { conditionsOffered, defaultConditions, parseConditions } from '../../../watches/watch-condition.js';
import { sharedChannelWatchRefusal } from '../../deps/conversation-audience.js';
import { heldFromPerson, privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { decodeOrigin } from '../../modals/modal-openers.js';
import { privateAnswer } from '../../modals/private-answer.js';
import { ackFirst } from '../../replies/ack-first.js';
import { countSlackError } from '../../replies/slack-errors.js';
import { userMessageFor } from '../../replies/user-message.js';
import { reportAtHand, reportFiguresAtHand, reportFor } from '../../reports/ask-for-report.js';
import { setWatchDeps, watchNotSet } from '../../reports/watch-report.js';
import { eventInMemory } from './event-in-memory.js';
import type { ViewState } from './event-modals.js';

type Checked = { selected_options?: { value?: string }[] | null };

/** The conditions typed and ticked, read against the report (none typed: its defaults). */
const conditionsFrom = (text: string, report: EventReport, forecast?: Forecast) =>
  text ? parseConditions(text, report, forecast) : { conditions: defaultConditions(report) };

/** Why those conditions cannot be watched, if they cannot. */
function conditionsProblem(parsed: ReturnType<typeof conditionsFrom>): string | undefined {
  if ('problem' in parsed) return parsed.problem;
  if (parsed.conditions.length === 0) return 'The latest report holds nothing to watch by default: name a condition.';
  return undefined;
}

const checked = (state: ViewState, name: 'offered' | 'personal') =>
  ((state[FIELDS[name].block]?.[FIELDS[name].action] as Checked | undefined)?.selected_options ?? []).map(
    (option) => option.value ?? '',
  );

/**
 * How old a report the submitted form's conditions are checked against may be: the one its pick was
 * drawn from, while a person fills the form in. One report window (60 s, or 1.5 s in a test's
 * sandbox) was too short: a person taking longer met "Fetching the event's report" and spent a
 * report call on conditions the form had just offered. The watch's first check reads a fresh one.
 */
const FORM_REPORT_MAX_AGE_MS = 15 * 60_000;

/** The watch form: picking an event redraws it with what that event's latest report allows; submitting sets the watch. */
export function registerWatchModal(app: App, deps: SlackDeps): void {
  app.action({ type: 'block_actions', action_id: EVENT_PICKER_ACTION }, async ({ ack, body, client }) => {
    await ackFirst(ack);
    const view = 'view' in body ? body.view : undefined;
    if (!view || view.callback_id !== WATCH_MODAL || !deps.watches) return;
    const state = view.state.values as ViewState;
    const eventId = state[FIELDS.event.block]?.[FIELDS.event.action]?.selected_option?.value ?? '';
    const event = eventInMemory(deps, eventId);
    if (!event || event === 'unlisted') return;
    const personal = checked(state, 'personal').includes(PERSONAL_VALUE);
    /** Redraws the form (undefined when Slack refused: the person changed it meanwhile, their version stands). */
    const redraw = (
      report: Shown<EventReport> | undefined,
      note: Mrkdwn,
      hash: string | undefined,
      forecast?: Forecast,
      comparables?: Comparables,
    ) =>
      client.views
        .update({
          view_id: view.id,
          ...(hash ? { hash } : {}),
          view: watchModalView({
            privateMetadata: view.private_metadata,
            event,
            offered: report ? conditionsOffered(report, forecast, comparables) : [],
            ticked: report ? defaultConditions(report) : [],
            currency: report ? reportCurrency(report) : undefined,
            note,
            personal,
          }),
        })
        .catch((error: unknown) => {
          countSlackError(deps.metrics, 'views.update', error);
          deps.logger.info('Could not redraw the watch form', { error });
          return undefined;
        });
    let hash: string | undefined = view.hash;
    // The person first: nothing is read (nor a report call spent) for someone who will be shown
    // nothing of it, and whose watch would be refused.
    const held = await heldFromPerson(deps.audience, body.user.id, deps.figuresPolicy);
    if (held) {
      await redraw(undefined, md`A watch's cards and alerts carry sales figures. ${withheldWords(held)}`, hash);
      return;
    }
    let report = await reportFiguresAtHand(deps, event.id).catch(() => undefined);
    if (!report) {
      // None at hand: fetched in the person's turn, the form saying so meanwhile.
      const waiting = await redraw(undefined, fetchingReportWords(md`to offer what it holds`, deps.reportLimit), hash);
      if (!waiting) return;
      hash = waiting.view?.hash;
      try {
        report = await reportFor(deps, event.id, body.user.id);
      } catch (error) {
        await redraw(
          undefined,
          md`The event's report could not be read: ${userMessageFor(error)} Pick the event again, or submit the form: the report is read again then.`,
          hash,
        );
        return;
      }
    }
    // What is offered carries the report's figures (a revenue threshold near today's): only for
    // someone the figures rule lets read them (asked again: they may have been made a guest since).
    const gate = showFigures(report, await privateReader(deps.audience, body.user.id), deps.figuresPolicy);
    if ('withheld' in gate) {
      await redraw(undefined, md`${withheldWords(gate.withheld)} Type conditions below.`, hash);
      return;
    }
    // The forecast conditions are offered only where the event's sales history can answer them.
    const ahead = await deps.insights?.of(event.id, report).catch(() => undefined);
    await redraw(
      gate.shown,
      md`Offered from the event's latest report and sales history: only what they hold. More in the box below.`,
      hash,
      ahead?.forecast,
      ahead?.comparables,
    );
  });

  app.view(WATCH_MODAL, async ({ ack, view, body, client }) => {
    const watches = deps.watches;
    const state = view.state.values as ViewState;
    const eventId = state[FIELDS.event.block]?.[FIELDS.event.action]?.selected_option?.value ?? '';
    const typed = (state[FIELDS.conditions.block]?.[FIELDS.conditions.action]?.value ?? '').trim();
    const known = eventId ? eventInMemory(deps, eventId) : undefined;
    if (!eventId || known === 'unlisted') {
      const problem = eventId ? 'That event is no longer listed.' : 'Pick an event.';
      await ack({ response_action: 'errors', errors: { [FIELDS.event.block]: problem } });
      return;
    }
    if (known && isCancelled(known)) {
      const cancelled = cancelledEventFieldError(eventLabel(known), 'watch');
      await ack({ response_action: 'errors', errors: { [FIELDS.event.block]: cancelled } });
      return;
    }
    if (known && !isUpcoming(known, deps.clock.now())) {
      // As the command: an event that has ended has nothing left to watch.
      const ended = `${eventLabel(known).slice(0, 100)} has ended: there is nothing left to watch.`;
      await ack({ response_action: 'errors', errors: { [FIELDS.event.block]: ended } });
      return;
    }
    const id = known?.id ?? parseId('event', eventId);
    const text = [...checked(state, 'offered'), typed].filter(Boolean).join(', ');
    // The report the form offered from is usually at hand (fetched or cached at the pick): its
    // problems are the form's field errors. Without one, the form closes and it is fetched.
    // Words first: what does not parse is the form's field error, with no report call.
    const wording = text ? parseConditions(text) : undefined;
    if (wording && 'problem' in wording) {
      await ack({ response_action: 'errors', errors: { [FIELDS.conditions.block]: wording.problem.slice(0, 150) } });
      return;
    }
    // The person first: what the report at hand says of these conditions is a figure too.
    const held = await heldFromPerson(deps.audience, body.user.id, deps.figuresPolicy);
    if (held) {
      await ackFirst(ack);
      await privateAnswer(client, decodeOrigin(view.private_metadata), body.user.id)(watchHeldMessage(held));
      return;
    }
    const atHand = await reportAtHand(deps, id, { maxAgeMs: FORM_REPORT_MAX_AGE_MS }).catch(() => undefined);
    if (atHand) {
      const aheadAtHand = await deps.insights?.of(id, atHand.report).catch(() => undefined);
      const problem = conditionsProblem(conditionsFrom(text, atHand.report, aheadAtHand?.forecast));
      if (problem) {
        await ack({ response_action: 'errors', errors: { [FIELDS.conditions.block]: problem.slice(0, 150) } });
        return;
      }
    }
    // With no report at hand it is read now: the form stays open, saying so, and comes back as
    // typed if the report refuses the conditions (Slack's field errors answer a submission only).
    const keptOpen = !atHand && body.view?.id !== undefined;
    if (keptOpen)
      await ackFirst(() =>
        ack({
          response_action: 'update',
          view: watchFormAnswerView(fetchingReportWords(md`to check your conditions`, deps.reportLimit)),
        }),
      );
    else await ackFirst(ack);
    const origin = decodeOrigin(view.private_metadata);
    const userId = body.user.id;
    const personal = checked(state, 'personal').includes(PERSONAL_VALUE) || !origin.channelId;
    const answered = privateAnswer(client, origin, userId);
    const showInForm = (next: Parameters<typeof client.views.update>[0]['view']) =>
      client.views.update({ view_id: body.view?.id ?? '', view: next }).then(
        () => true,
        (error: unknown) => {
          countSlackError(deps.metrics, 'views.update', error);
          deps.logger.info('Could not update the watch form', { error });
          return false;
        },
      );
    // Where the form stayed open it says what came of it too; the answer goes where it always went.
    const respond = async (message: SlackMessage) => {
      if (keptOpen) await showInForm(watchFormAnswerView(message.text));
      return answered(message);
    };
    try {
      if (!watches) throw new Error('Watches are not running in this deployment');
      const event = known ?? (await deps.catalog.lookup(id, deps.interactive())).event;
      if (!event) {
        await respond(warningMessage(md`That event is no longer listed.`));
        return;
      }
      const eventName = eventLabel(event);
      const outcome = await setWatch(
        setWatchDeps({ ...deps, watches }),
        {
          conversation: personal ? userId : (origin.channelId as string),
          personal,
          event,
          eventName,
          userId,
          conditions: text,
          sharedConfirmed: false,
        },
        {
          // The form kept open already says so.
          fetching: async () => {
            if (!keptOpen) await respond(fetchingReportMessage(md`to see what it lets you watch`, deps.reportLimit));
          },
          // As the command: not into a channel shared with another organization unasked.
          stopBeforeReport: async () => {
            if (personal || !origin.channelId) return false;
            const shown = { id: event.id, label: eventName };
            const refusal = await sharedChannelWatchRefusal(
              deps.audience,
              origin.channelId,
              shown,
              text,
              deps.figuresPolicy,
            );
            if (refusal) await respond(refusal);
            return refusal !== undefined;
          },
        },
      );
      if (outcome) {
        // Asked again once the report came: they may have been made a guest while it was fetched.
        const gate = showFigures(outcome, await privateReader(deps.audience, userId), deps.figuresPolicy);
        // Conditions the report refuses: the form back as submitted, the problem under them (its
        // words may name the report's codes: only where the figures may be shown).
        const refused =
          gate && (outcome.kind === 'wording' || outcome.kind === 'conditions') ? outcome.problem : undefined;
        const back =
          keptOpen &&
          refused !== undefined &&
          (await showInForm(
            watchModalView({
              privateMetadata: view.private_metadata,
              event,
              personal: checked(state, 'personal').includes(PERSONAL_VALUE),
              typed: { conditions: text, problem: md`${clip(refused, 300)} The watch was not set.` },
            }),
          ));
        if (!back)
          await respond(
            watchAnswer(gate, outcome, eventName, (words) =>
              warningMessage(md`${words} The watch was not set: open the form again.`),
            ),
          );
      }
    } catch (error) {
      deps.logger.warn('The watch form could not set the watch', { error });
      await respond(warningMessage(watchNotSet(deps, error))).catch(() => undefined);
    }
  });
}
