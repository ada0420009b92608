import { type SlackMessage, warningMessage } from './block-kit.js';
import { clipName, code, joinMrkdwn, md } from './mrkdwn.js';

/** What a promo command with its code left out names: the event, its known codes, the command to type. */
export interface MissingCodeInput {
  eventName: string;
  /** The codes known for the event without a report call (may be none). */
  codes: readonly string[];
  /** The command after `/events`, with `code` in the code's place. */
  command: (code: string) => string;
}

/** Most known codes listed: a "which code?" is a short list. */
const MAX_CODES = 10;

/** `/events promo Winter Gala 10`: the code is missing. Which one, from the known codes, or what to type. */
export function missingCodeMessage(input: MissingCodeInput): SlackMessage {
  const name = clipName(input.eventName, 150);
  const [first] = input.codes;
  if (first === undefined) {
    return warningMessage(
      md`The promo code is missing for *${name}*. Type ${code(`/events ${input.command('<CODE>')}`, 300)} with the code (or its id, \`promo_…\`) in place of \`<CODE>\`. Nothing was changed.`,
    );
  }
  const codes = joinMrkdwn(
    input.codes.slice(0, MAX_CODES).map((each) => code(each, 64)),
    md`, `,
  );
  return warningMessage(
    md`The promo code is missing: which code of *${name}*? Its known codes: ${codes}. Type e.g. ${code(`/events ${input.command(first)}`, 300)}. Nothing was changed.`,
  );
}
