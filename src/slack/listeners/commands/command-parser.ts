import { didYouMean } from '../../../catalog/did-you-mean.js';
import { searchTextProblem } from '../../../catalog/event-search.js';
import { type EventTarget, type ListFilter, parseDayRange } from '../../../catalog/find-events.js';
import {
  type DigestOnOptions,
  MAX_DIGEST_DAYS,
  parseWeekdays,
  TIME_OF_DAY,
  timeOfDay,
} from '../../../digest/subscription.js';
import { type PromoRef, parsePromoRef } from '../../../promo/promo-codes.js';
import { USAGE } from '../../../render/command-syntax.js';
import { clip, code, escapeText, joinMrkdwn, type Mrkdwn, md } from '../../../render/mrkdwn.js';
import { isTicketingError } from '../../../ticketing/errors.js';
import { parseId } from '../../../ticketing/ids.js';
import { MAX_PROMO_QUANTITY, parsePromoQuantity } from '../../../ticketing/promo-quantity.js';
import { isValidTimeZone } from '../../../time/zoned.js';

export type EventsCommand =
  | { kind: 'list'; filter: ListFilter }
  | { kind: 'help' }
  | { kind: 'show'; target: EventTarget }
  | { kind: 'report'; target: EventTarget }
  | { kind: 'find'; words: string }
  /** The event by id or name; the promo code by its id or by its code (`EARLYBIRD`), found in a report. */
  | { kind: 'promo'; target: EventTarget; promo: PromoRef; quantity: number }
  /** `promo` or `report` with nothing after it: a modal asks. */
  | { kind: 'promo-modal' }
  | { kind: 'report-modal' }
  /**
   * `digest ...`; `personal` (`--me`): the person's own digest, in their DM; `sales` (`--sales`):
   * the sales digest of the watched events, beside the event digest.
   */
  | { kind: 'digest-on'; options: DigestOnOptions; personal?: true; sales?: true }
  | { kind: 'digest-off'; personal?: true; sales?: true }
  | { kind: 'digest-status'; personal?: true; sales?: true }
  | { kind: 'digest-now'; personal?: true; sales?: true }
  /**
   * `watch <event> [: conditions] [--except words]`; `personal` (`--me`): in the person's DM;
   * `except`: words of promo codes or figures, or condition categories, left out.
   */
  | { kind: 'watch'; target: EventTarget; conditions: string; personal: boolean; except?: string[] }
  | { kind: 'watch-modal'; personal: boolean }
  | { kind: 'unwatch'; target: EventTarget; personal: boolean }
  | { kind: 'watches'; personal: boolean }
  /** `watches thread-only [on | off]`: the channel's watch alerts stay in the cards' threads. */
  | { kind: 'watches-thread-only'; on: boolean }
  /** `forecast accuracy`: the forecast's track record on the organization's finished events. */
  | { kind: 'forecast-accuracy' }
  /** `mcp token` (a new token, shown once) or `mcp revoke`: the person's own MCP token. */
  | { kind: 'mcp-token' }
  | { kind: 'mcp-revoke' }
  | { kind: 'invalid'; problem: Mrkdwn; usage: Mrkdwn };

/** The commands a choice between events finishes: each event's button runs it with that event. */
export type FinishableCommand = Extract<EventsCommand, { kind: 'watch' | 'unwatch' | 'report' | 'promo' }>;

const except = (words: readonly string[] | undefined) => (words?.length ? ` --except ${words.join(' ')}` : '');

/**
 * `command` as it would be typed for one event, named by its id: what a choice's button carries,
 * parsed again as if typed when it is clicked (`parseEventsCommand` gives the command back).
 */
export function commandFor(command: FinishableCommand, eventId: string): string {
  const me = 'personal' in command && command.personal ? ' --me' : '';
  switch (command.kind) {
    case 'watch':
      // The colon ends the event, whatever the conditions hold.
      return `watch ${eventId}${command.conditions ? `: ${command.conditions}` : ''}${except(command.except)}${me}`;
    case 'unwatch':
      return `unwatch ${eventId}${me}`;
    case 'report':
      return `report ${eventId}`;
    case 'promo':
      return `promo ${eventId} ${'id' in command.promo ? command.promo.id : command.promo.code} ${command.quantity}`;
  }
}

function invalid(problem: Mrkdwn, usage: Mrkdwn): EventsCommand {
  return { kind: 'invalid', problem, usage };
}

/** Words of an event's name as typed, or the problem with them (too long to search). */
function searchText(words: string, usage: Mrkdwn): EventsCommand | undefined {
  const problem = searchTextProblem(words);
  return problem === undefined ? undefined : invalid(md`${clip(problem, 300)}`, usage);
}

/** A problem's sentence without its full stop, for the "(got ...)." that follows it. */
const withoutStop = (problem: string): string => problem.replace(/\.$/, '');

/** What the person typed, quoted and shortened. */
function shown(text: string): Mrkdwn {
  return md`"${clip(text, 40)}"`;
}

/** Reads the text after `/events`; never throws, never calls anything. */
export function parseEventsCommand(text: string): EventsCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const [sub = 'list', ...args] = words;
  switch (sub.toLowerCase()) {
    case 'list':
    case 'upcoming': {
      const filter = parseListFilter(args);
      return searchText(filter.words ?? '', USAGE.list) ?? { kind: 'list', filter };
    }
    case 'help':
      return { kind: 'help' };
    case 'show':
      if (args.length === 0) return invalid(md`\`show\` needs an event id or words of its name.`, USAGE.show);
      return withTarget(args, USAGE.show, (target) => ({ kind: 'show', target }));
    case 'report':
      if (args.length === 0) return { kind: 'report-modal' };
      return withTarget(args, USAGE.report, (target) => ({ kind: 'report', target }));
    case 'find':
      if (args.length === 0) return invalid(md`\`find\` needs words of an event's name.`, USAGE.find);
      return searchText(args.join(' '), USAGE.find) ?? { kind: 'find', words: args.join(' ') };
    case 'promo': {
      if (args.length === 0) return { kind: 'promo-modal' };
      const missing = missingQuantity(args);
      if (missing) return missing;
      // The event's name may be several words: the last two are the code and the quantity.
      if (args.length < 3) {
        const example = promoExample(args);
        return invalid(
          md`\`promo\` takes an event (its id or name), a promo code (or its id) and a quantity${example ? md`, e.g. ${example}` : md``}.`,
          USAGE.promo,
        );
      }
      const promoText = args[args.length - 2] as string;
      const promo = parsePromoRef(promoText);
      if ('problem' in promo)
        return invalid(md`${clip(withoutStop(promo.problem), 200)} (got ${shown(promoText)}).`, USAGE.promo);
      const raw = args[args.length - 1] as string;
      const quantity = parsePromoQuantity(raw);
      if ('problem' in quantity)
        return invalid(
          md`${clip(withoutStop(quantity.problem), 300)} (got ${shown(raw)}). Type it after the code, e.g. ${typeThis(['promo', ...args.slice(0, -1), EXAMPLE_QUANTITY])}.`,
          USAGE.promo,
        );
      return withTarget(args.slice(0, -2), USAGE.promo, (target) => ({
        kind: 'promo',
        target,
        promo,
        quantity: quantity.quantity,
      }));
    }
    case 'digest':
      return parseDigest(args);
    case 'watch':
      return parseWatch(text.trim().slice(sub.length));
    case 'unwatch': {
      const { rest, personal } = takeFlag(args, '--me');
      if (rest.length === 0) return invalid(md`\`unwatch\` needs the event id or words of its name.`, USAGE.unwatch);
      return withTarget(rest, USAGE.unwatch, (target) => ({ kind: 'unwatch', target, personal }));
    }
    case 'watches':
      return parseWatches(args);
    case 'forecast':
      if (args.length !== 1 || args[0]?.toLowerCase() !== 'accuracy')
        return invalid(md`\`forecast\` takes one word: \`accuracy\`.`, USAGE.forecast);
      return { kind: 'forecast-accuracy' };
    case 'mcp': {
      const [action] = args;
      if (args.length === 1 && action?.toLowerCase() === 'token') return { kind: 'mcp-token' };
      if (args.length === 1 && action?.toLowerCase() === 'revoke') return { kind: 'mcp-revoke' };
      return invalid(md`\`mcp\` takes one word: \`token\` or \`revoke\`.`, USAGE.mcp);
    }
    default:
      return unknownSubcommand(sub, args);
  }
}

/** What can follow `/events`, as the parser reads it; each with the usage quoted under a mistake. */
const SUBCOMMANDS = {
  list: USAGE.list,
  upcoming: USAGE.list,
  show: USAGE.show,
  find: USAGE.find,
  report: USAGE.report,
  promo: USAGE.promo,
  digest: USAGE.digest,
  watch: USAGE.watch,
  unwatch: USAGE.unwatch,
  watches: USAGE.watches,
  forecast: USAGE.forecast,
  help: USAGE.help,
} as const satisfies Record<string, Mrkdwn>;

/** Every subcommand, for a word that is none of them. */
const ALL_SUBCOMMANDS = md`/events [list | show | find | report | promo | digest | watch | unwatch | watches | forecast | help]`;

/** The quantity shown in an example of what to type, where the person gave none. */
const EXAMPLE_QUANTITY = '100';

/** A command to type, as inline code: `/events` and the words given (placeholders shown as typed). */
function typeThis(words: readonly string[]): Mrkdwn {
  return code(['/events', ...words].join(' '), 300);
}

/** "`/events a ...` or `/events b ...`": each close word with the rest of what was typed. */
function alternatives(words: readonly string[], rest: readonly string[]): Mrkdwn {
  return joinMrkdwn(
    words.map((word) => typeThis([word, ...rest])),
    md` or `,
  );
}

/** A first word that is no subcommand: the one it was likely meant to be, with the whole command to type. */
function unknownSubcommand(sub: string, args: readonly string[]): EventsCommand {
  const close = didYouMean(sub, Object.keys(SUBCOMMANDS));
  const [only] = close;
  if (!only) return invalid(md`Unknown subcommand ${shown(sub)}.`, ALL_SUBCOMMANDS);
  const usage = close.length === 1 ? SUBCOMMANDS[only as keyof typeof SUBCOMMANDS] : ALL_SUBCOMMANDS;
  return invalid(md`Unknown subcommand ${shown(sub)}. Did you mean ${alternatives(close, args)}?`, usage);
}

/**
 * `promo <event> <code>` with the quantity left out: the last word is a code (or a promo id)
 * rather than a quantity that is not a number. It is when it is a promo id; or the second of two
 * words; or it follows words of a name (after a lone event id, or after a word written like a
 * code, in capitals or with digits, it is a quantity mistyped).
 */
function missingQuantity(args: readonly string[]): EventsCommand | undefined {
  const last = args[args.length - 1] as string;
  if (/^\d+$/.test(last)) return undefined;
  const ref = parsePromoRef(last);
  if ('problem' in ref) return undefined;
  const before = args[args.length - 2];
  const isCode =
    'id' in ref ||
    args.length === 2 ||
    (before !== undefined &&
      !ID_LIKE.test(args[0] as string) &&
      !('id' in parsePromoRef(before)) &&
      !writtenLikeCode(before));
  if (!isCode) return undefined;
  return invalid(
    md`The quantity is missing: it comes after the promo code, a whole number from 0 to ${escapeText(MAX_PROMO_QUANTITY.toLocaleString('en-US'))}. Type e.g. ${typeThis(['promo', ...args, EXAMPLE_QUANTITY])}.`,
    USAGE.promo,
  );
}

/** `promo` with one or two words: what to type with the code (and the quantity) in their places. */
function promoExample(args: readonly string[]): Mrkdwn | undefined {
  const [first, second] = args;
  if (first === undefined) return undefined;
  const isQuantity = (word: string) => /^\d+$/.test(word);
  if (second === undefined)
    return isQuantity(first)
      ? typeThis(['promo', '<event>', '<code>', first])
      : typeThis(['promo', first, '<code>', '<quantity>']);
  return isQuantity(second) ? typeThis(['promo', first, '<code>', second]) : undefined;
}

/** Written as promo codes are (EARLYBIRD, SUMMER25), not as words of a name (night). */
const writtenLikeCode = (word: string) => /\d/.test(word) || (/[A-Z]/.test(word) && word === word.toUpperCase());

/** Takes a flag out of the words, wherever it is. */
function takeFlag(args: readonly string[], flag: string): { rest: string[]; personal: boolean } {
  const rest = args.filter((arg) => arg.toLowerCase() !== flag);
  return { rest, personal: rest.length !== args.length };
}

/** `watches [--me]`, or `watches thread-only [on | off]` (a channel's setting: no `--me`). */
function parseWatches(args: readonly string[]): EventsCommand {
  const { rest, personal } = takeFlag(args, '--me');
  if (rest.length === 0) return { kind: 'watches', personal };
  const [setting, value = 'on', ...more] = rest.map((word) => word.toLowerCase());
  if (setting !== 'thread-only')
    return invalid(md`\`watches\` takes no more words than --me, or \`thread-only on\` or \`off\`.`, USAGE.watches);
  if (personal)
    return invalid(md`\`thread-only\` is a channel's setting: run it in the channel, without --me.`, USAGE.watches);
  if ((value !== 'on' && value !== 'off') || more.length > 0)
    return invalid(md`\`thread-only\` is followed by \`on\` or \`off\`.`, USAGE.watches);
  return { kind: 'watches-thread-only', on: value === 'on' };
}

/**
 * `watch <event id or name> [: conditions] [--except words] [--me]`: the conditions follow a
 * colon, or the word `when`, or an id (nothing to mistake for a name); the words after
 * `--except` are left out; with no event, a modal asks.
 */
function parseWatch(text: string): EventsCommand {
  const { rest: all, personal } = takeFlag(text.trim().split(/\s+/).filter(Boolean), '--me');
  const at = all.findIndex((word) => word.toLowerCase() === '--except');
  const rest = at < 0 ? all : all.slice(0, at);
  const excepted = at < 0 ? [] : all.slice(at + 1).flatMap((word) => word.split(',').filter(Boolean));
  if (at >= 0 && excepted.length === 0)
    return invalid(md`\`--except\` needs words of promo codes or figures, or a kind such as \`pace\`.`, USAGE.watch);
  if (rest.length === 0) {
    if (at >= 0) return invalid(md`\`--except\` goes after the event and its conditions.`, USAGE.watch);
    return { kind: 'watch-modal', personal };
  }
  const joined = rest.join(' ');
  let eventPart: string;
  let conditions = '';
  const colon = joined.indexOf(':');
  const when = joined.search(/\swhen\s/i);
  if (colon >= 0) {
    eventPart = joined.slice(0, colon);
    conditions = joined.slice(colon + 1);
  } else if (when >= 0) {
    eventPart = joined.slice(0, when);
    conditions = joined.slice(when + ' when '.length);
  } else if (ID_LIKE.test(rest[0] as string)) {
    eventPart = rest[0] as string;
    conditions = rest.slice(1).join(' ');
  } else {
    eventPart = joined;
  }
  const words = eventPart.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0)
    return invalid(md`\`watch\` needs the event id or words of its name before the conditions.`, USAGE.watch);
  return withTarget(words, USAGE.watch, (target) => ({
    kind: 'watch',
    target,
    conditions: conditions.trim(),
    personal,
    ...(excepted.length > 0 ? { except: excepted } : {}),
  }));
}

/**
 * `digest on [HH:MM] [zone] [--days N] [--skip-empty] [--match words] [--weekdays days] | off | status | now`
 * (status by default), each with `--me` anywhere for the person's own digest, and `--sales`
 * anywhere for the sales digest (`on --sales [daily|weekly] [HH:MM] [zone] [--weekdays day]`).
 */
function parseDigest(args: readonly string[]): EventsCommand {
  const { rest: unflagged, personal } = takeFlag(args, '--me');
  const { rest: words, personal: sales } = takeFlag(unflagged, '--sales');
  const [action = 'status', ...rest] = words;
  const mine = { ...(personal ? { personal: true as const } : {}), ...(sales ? { sales: true as const } : {}) };
  const only = (kind: 'digest-off' | 'digest-status' | 'digest-now'): EventsCommand =>
    rest.length === 0
      ? { kind, ...mine }
      : invalid(
          md`\`digest ${clip(action, 10)}\` takes no more words${personal ? md` than --me` : md``}.`,
          USAGE.digest,
        );
  switch (action.toLowerCase()) {
    case 'on': {
      const options = sales ? parseSalesDigestOn(rest) : parseDigestOn(rest);
      return 'problem' in options ? invalid(options.problem, USAGE.digest) : { kind: 'digest-on', options, ...mine };
    }
    case 'off':
      return only('digest-off');
    case 'status':
      return only('digest-status');
    case 'now':
      return only('digest-now');
    default: {
      const close = didYouMean(action, DIGEST_ACTIONS, { startsOne: true });
      const flags = [...(personal ? ['--me'] : []), ...(sales ? ['--sales'] : [])];
      const meant = close.map((each) => `digest ${each}`);
      return invalid(
        close.length > 0
          ? md`Unknown digest action ${shown(action)}. Did you mean ${alternatives(meant, [...rest, ...flags])}?`
          : md`Unknown digest action ${shown(action)}.`,
        USAGE.digest,
      );
    }
  }
}

/** What can follow `digest`. */
const DIGEST_ACTIONS = ['on', 'off', 'status', 'now'];

/** The options of `digest on`, `--me` and `--sales` taken before it is parsed. */
const DIGEST_ON_OPTIONS = ['--days', '--skip-empty', '--match', '--weekdays', '--me', '--sales'];

/** A `--word` that is no option of `digest on`: said so (not "not a timezone"), with the one meant or all of them. */
function unknownDigestOption(arg: string): Mrkdwn {
  const close = didYouMean(arg, DIGEST_ON_OPTIONS);
  const named = (options: readonly string[], separator: Mrkdwn) =>
    joinMrkdwn(
      options.map((each) => code(each)),
      separator,
    );
  return close.length > 0
    ? md`${shown(arg)} is not an option of \`digest on\`. Did you mean ${named(close, md` or `)}?`
    : md`${shown(arg)} is not an option of \`digest on\` (its options: ${named(DIGEST_ON_OPTIONS, md`, `)}).`;
}

const CADENCES = ['daily', 'weekly'] as const;
const cadenceOf = (arg: string) => CADENCES.find((cadence) => cadence === arg.toLowerCase());

/** `on --sales [daily|weekly] [HH:MM] [zone] [--weekdays days] [--skip-empty]`: weekly posts on one day. */
function parseSalesDigestOn(args: readonly string[]): DigestOnOptions | { problem: Mrkdwn } {
  const cadences = args.map(cadenceOf).filter((cadence) => cadence !== undefined);
  if (new Set(cadences).size > 1) return { problem: md`A sales digest is daily or weekly, not both.` };
  for (const flag of ['--days', '--match']) {
    if (args.some((arg) => arg === flag || arg.startsWith(`${flag}=`)))
      return {
        problem: md`${clip(flag, 10)} is for the event digest; the sales digest covers the events watched here.`,
      };
  }
  const options = parseDigestOn(
    args.filter((arg) => cadenceOf(arg) === undefined),
    true,
  );
  if ('problem' in options) return options;
  const cadence = cadences[0] ?? 'daily';
  if (cadence === 'weekly' && options.weekdays && options.weekdays.length !== 1)
    return { problem: md`A weekly sales digest posts on one day: name one with --weekdays (mon, tue, ...).` };
  return { ...options, sales: { cadence } };
}

function parseDigestOn(args: readonly string[], sales = false): DigestOnOptions | { problem: Mrkdwn } {
  const result: DigestOnOptions = { time: undefined, timezone: undefined, days: 1, skipEmpty: false };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--skip-empty') {
      result.skipEmpty = true;
    } else if (arg === '--match') {
      const words: string[] = [];
      while (i + 1 < args.length && !(args[i + 1] as string).startsWith('--')) words.push(args[++i] as string);
      const match = words.join(' ').trim();
      if (!match) return { problem: md`--match takes words of event names.` };
      const tooLong = searchTextProblem(match);
      if (tooLong) return { problem: md`--match: ${clip(tooLong, 300)}` };
      result.match = match;
    } else if (arg === '--weekdays' || arg.startsWith('--weekdays=')) {
      const value = arg.includes('=') ? arg.slice('--weekdays='.length) : args[++i];
      const weekdays = value ? parseWeekdays(value) : undefined;
      if (!weekdays) {
        return {
          problem: md`--weekdays takes days such as mon-fri, mon,wed,fri or weekends (got ${shown(value ?? '')}).`,
        };
      }
      result.weekdays = weekdays;
    } else if (arg === '--days' || arg.startsWith('--days=')) {
      const value = arg.includes('=') ? arg.slice('--days='.length) : args[++i];
      const days = Number(value);
      if (!value || !/^\d+$/.test(value) || days < 1 || days > MAX_DIGEST_DAYS) {
        return { problem: md`--days takes a whole number from 1 to ${MAX_DIGEST_DAYS} (got ${shown(value ?? '')}).` };
      }
      result.days = days;
    } else if (/^\d{1,2}[:.h]\d{2}$/.test(arg)) {
      const normalised = arg.replace(/[.h]/, ':');
      if (!TIME_OF_DAY.test(normalised))
        return { problem: md`${shown(arg)} is not a time of day (use HH:MM, 00:00 to 23:59).` };
      const { hour, minute } = timeOfDay(normalised);
      result.time = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
    } else if (/^\d/.test(arg)) {
      return { problem: md`${shown(arg)} is not a time of day (use HH:MM, 00:00 to 23:59).` };
    } else if (isValidTimeZone(arg)) {
      result.timezone = arg;
    } else if (cadenceOf(arg)) {
      return { problem: md`${shown(arg)} is for the sales digest: add --sales.` };
    } else if (arg.startsWith('--')) {
      return { problem: unknownDigestOption(arg) };
    } else if (sales) {
      // A sales digest's word is a cadence more often than a zone ("monthly", "wekly").
      const close = didYouMean(arg, CADENCES);
      const meant = close.length > 0 ? md` Did you mean ${code(close[0] as string)}?` : md``;
      return {
        problem: md`${shown(arg)} is not daily or weekly, nor a timezone I know (use an IANA name such as Europe/Berlin).${meant}`,
      };
    } else {
      return { problem: md`${shown(arg)} is not a timezone I know (use an IANA name such as Europe/Berlin).` };
    }
  }
  return result;
}

/** `[today | tomorrow | week] [words]`. */
function parseListFilter(args: readonly string[]): ListFilter {
  const [first, ...rest] = args;
  const range = parseDayRange(first?.toLowerCase());
  const words = (range ? rest : args).join(' ').trim();
  return { ...(range ? { range } : {}), ...(words ? { words } : {}) };
}

/** Looks like an id of some kind: a UUID, with or without a prefix. */
const ID_LIKE = /^([a-z]+_)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One word that looks like an id must be an event id (a promo id there is named as the mistake
 * it is); anything else is words of an event's name.
 */
function withTarget(
  args: readonly string[],
  usage: Mrkdwn,
  build: (target: EventTarget) => EventsCommand,
): EventsCommand {
  const [only] = args;
  if (args.length === 1 && only && ID_LIKE.test(only)) {
    try {
      return build({ id: parseId('event', only) });
    } catch (error) {
      return invalid(isTicketingError(error) ? md`${clip(error.message, 200)}.` : md`That id is not valid.`, usage);
    }
  }
  const words = args.join(' ');
  return searchText(words, usage) ?? build({ words });
}
