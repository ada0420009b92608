import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { SetWatchOutcome } from '../watches/set-watch.js';
import type { Watch } from '../watches/watch.js';
import { LIMITS, mrkdwnSection, plainMessage, type SlackMessage, warningMessage } from './block-kit.js';
import { cancelledEventMessage } from './cancelled-words.js';
import { everyWords } from './every-words.js';
import { channelLink, clip, code, joinMrkdwn, type Mrkdwn, md, shorten } from './mrkdwn.js';
import { eventName, MAX_CONDITION_LINES } from './watch-words.js';
import { withheldWords } from './withheld-words.js';
/** The DM to the person who set a watch up when its conversation refuses posts (as `digestPausedMessage`). */
export function watchPausedMessage(watch: Watch, reason: Mrkdwn): SlackMessage {
  const name = eventName(watch, 150);
  const why = shorten(reason, 200);
  if (watch.personal) {
    return plainMessage(
      md`Your personal watch of *${name}* could not be posted (${why}), so it is paused. Run ${code(`/events watch ${watch.eventId}`, 120)} again to resume.`,
    );
  }
  return plainMessage(
    md`The watch of *${name}* you set up in ${channelLink(watch.channel)} could not be posted (${why}), so it is paused. Invite me back with \`/invite @eventops\` and run ${code(`/events watch ${watch.eventId}`, 120)} there to resume.`,
  );
}

export interface WatchConfirmationInput {
  watch: Watch;
  /** The card could not be posted yet (Slack failed for a while): the next check posts it. */
  cardPending?: boolean | undefined;
  /** Keys of the conditions this command added. */
  added: readonly string[];
  /** Keys of the conditions asked for that the watch already had. */
  already: readonly string[];
  /** Keys of the conditions already met by the report they were read from: no alert for those. */
  alreadyCrossed?: readonly string[] | undefined;
  /** Conditions `--except` left out. */
  excepted?: readonly string[] | undefined;
  intervalMs: number;
}

/** The private answer to `/events watch`: what is watched now, and what already was. */
export function watchConfirmationMessage(input: WatchConfirmationInput): SlackMessage {
  const { watch } = input;
  const name = eventName(watch, 150);
  const place = watch.personal ? md`for you` : md`in ${channelLink(watch.channel)}`;
  const keys = (list: readonly string[]) => {
    const shown = list.slice(0, MAX_CONDITION_LINES).map((key) => code(key, 100));
    const more = list.length > shown.length ? md` and ${list.length - shown.length} more` : md``;
    return md`${joinMrkdwn(shown, md`, `)}${more}`;
  };
  const lines: Mrkdwn[] = [
    md`:eyes: Watching *${name}* ${place}: one card, updated every ${everyWords(input.intervalMs)}, alerts in its thread.`,
  ];
  if (input.cardPending)
    lines.push(
      md`• The watch is set, but Slack did not take its card just now: the card follows with the next check. No need to set it again.`,
    );
  if (input.added.length > 0) lines.push(md`• Added: ${keys(input.added)}`);
  if (input.already.length > 0) lines.push(md`• Already watched: ${keys(input.already)}`);
  if (input.added.length === 0 && input.already.length === 0 && watch.conditions.length === 0)
    lines.push(md`• No conditions: the card keeps the figures up to date.`);
  if (input.alreadyCrossed && input.alreadyCrossed.length > 0)
    lines.push(
      md`• Already crossed when the watch was set: ${keys(input.alreadyCrossed)} (no alert for that; one comes if it clears and crosses again)`,
    );
  if (input.excepted && input.excepted.length > 0) lines.push(md`• Left out (\`--except\`): ${keys(input.excepted)}`);
  const all = watch.conditions.map((state) => state.key);
  if (all.length > 0) lines.push(md`• All conditions now: ${keys(all)}`);
  const text = joinMrkdwn(lines);
  return {
    text: shorten(md`Watching ${name} ${place}`, LIMITS.fallbackText),
    blocks: [mrkdwnSection(text)],
  };
}

/** Why a watch was not set or changed: too many conditions or watches, or nothing the report lets us watch. */
export function watchRefusedMessage(
  input:
    | { kind: 'too-many-conditions'; max: number; eventName: string }
    | { kind: 'too-many-watches'; max: number; eventName?: string }
    | { kind: 'too-many-for-person'; max: number; paused?: number; eventName?: string }
    | { kind: 'nothing-to-watch'; eventName: string },
): SlackMessage {
  switch (input.kind) {
    case 'too-many-conditions':
      return warningMessage(
        md`A watch holds at most ${input.max} conditions, and *${clip(input.eventName, 150)}* would have more here: nothing was changed. \`/events watches\` lists them; \`/events unwatch\` starts over.`,
      );
    case 'too-many-watches':
      return warningMessage(
        md`At most ${input.max} events are watched in one conversation (each takes report slots and a card): nothing was changed. \`/events watches\` lists them.`,
      );
    case 'too-many-for-person': {
      const paused = input.paused
        ? md` ${input.paused} of them ${input.paused === 1 ? md`is` : md`are`} paused and still count: end those first.`
        : md``;
      return warningMessage(
        md`You have set up ${input.max} watches, as many as one person may (every watched event shares the same report slots): nothing was changed.${paused} \`/events watches\` lists a conversation's watches, App Home lists yours; \`/events unwatch\` ends one.`,
      );
    }
    case 'nothing-to-watch':
      return warningMessage(
        md`The latest report of *${clip(input.eventName, 150)}* holds nothing to watch by default (no tickets sold of a capacity, no promo codes): name a condition, such as \`checkIns >= 100\`.`,
      );
  }
}

/**
 * How setting a watch came out, in words (`problem`: how this surface says a problem with the
 * conditions: the command adds its usage line, the form asks to open it again). `Shown`: it names
 * what the report holds (which conditions already crossed, the promo codes a problem lists), so
 * it passed the figures rule for the person, asked once the report came.
 */
export function watchOutcomeMessage(
  outcome: Shown<SetWatchOutcome>,
  eventName: string,
  problem: (words: Mrkdwn) => SlackMessage,
): SlackMessage {
  switch (outcome.kind) {
    case 'cancelled':
      return cancelledEventMessage(eventName, 'watch');
    case 'over':
      return warningMessage(md`*${clip(eventName, 200)}* is over: there is nothing left to watch.`);
    case 'wording':
    case 'conditions':
      return problem(clip(outcome.problem, 300));
    case 'refused':
      return watchRefusedMessage({ ...outcome.refusal, eventName });
    case 'nothing-to-watch':
      return watchRefusedMessage({ kind: 'nothing-to-watch', eventName });
    case 'set':
      return outcome.result.watch.paused
        ? warningMessage(md`I could not post the watch card there, so the watch is paused. I sent you the reason.`)
        : watchConfirmationMessage({
            ...outcome.result,
            alreadyCrossed: outcome.alreadyCrossed,
            excepted: outcome.excepted,
          });
  }
}

/**
 * A watch refused because the figures rule holds figures back from the person setting it: a
 * watch's answer, cards and alerts carry what the event's report holds.
 */
export function watchHeldMessage(withheld: Withheld, set = false): SlackMessage {
  if (set)
    return warningMessage(
      md`The watch is set, but what it says of the event's sales is not shown to you. ${withheldWords(withheld)}`,
    );
  return warningMessage(md`No watch set: a watch's cards and alerts carry sales figures. ${withheldWords(withheld)}`);
}

/**
 * The answer to setting a watch, for the person who asked: through the figures rule, asked again
 * once the report came (they may have been made a guest while it was fetched).
 */
export function watchAnswer(
  gate: { shown: Shown<SetWatchOutcome> } | { withheld: Withheld },
  outcome: SetWatchOutcome,
  eventName: string,
  problem: (words: Mrkdwn) => SlackMessage,
): SlackMessage {
  if ('shown' in gate) return watchOutcomeMessage(gate.shown, eventName, problem);
  return watchHeldMessage(gate.withheld, outcome.kind === 'set');
}
