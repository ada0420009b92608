import type { webApi } from '@slack/bolt';
import type { LRUCache } from 'lru-cache';
import {
  type FiguresPolicy,
  figuresWithheld,
  type MembersUnread,
  type Person,
  type Room,
} from '../../figures/may-show-figures.js';
import type { Logger } from '../../logger.js';
import type { SlackMessage } from '../../render/block-kit.js';
import {
  notInChannelWatchMessage,
  type SharingDoubt,
  sharedChannelWatchMessage,
} from '../../render/shared-channel-blocks.js';
import type { Clock } from '../../time/clock.js';
import { ttlCache } from '../../ttl-cache.js';
import { slackErrorCode } from '../replies/slack-errors.js';
import type { ForgetMarks } from './forget-marks.js';

/**
 * Who can read a conversation, as far as figures are concerned: the organization alone (and
 * whether the bot is in it), someone of another organization too (Slack Connect: a shared channel,
 * a DM or group DM with a partner), or unknown because Slack could not say.
 */
export type Audience =
  /** `guests`: guests of the workspace are among its members (a channel's members are looked up). */
  | { kind: 'internal'; botIsMember: boolean; guests?: boolean }
  /**
   * `guests`: guests of the workspace are among its members; `unread`: its members were not read,
   * and why (`app-not-in`: the bot is not in it). They are read only when a choice is asked about.
   */
  | { kind: 'external'; guests?: 'some'; unread?: MembersUnread }
  | { kind: 'unknown'; reason: string };

export interface ConversationAudience {
  /**
   * What Slack says of `conversation` (`C…`, `G…`, `D…`), cached; never throws. `members`: a
   * choice to share there anyway is asked about, so a shared channel's members are read too
   * (without a choice a shared channel holds its figures whoever is in it).
   */
  of(conversation: string, client?: webApi.WebClient, options?: AudienceAsk): Promise<Audience>;
  /** What Slack says of a person (`users.info`): of the organization, a guest, of another one; cached; never throws. */
  person(user: string, client?: webApi.WebClient): Promise<Person>;
  /**
   * Forgets what was kept of `conversation` (its sharing or membership changed: `channel_shared`,
   * `channel_unshared`, `member_joined_channel`), so the next ask looks again.
   */
  forget(conversation: string): Promise<void>;
  /**
   * A person changed (`user_change`, sent for any profile or status change): when their guest or
   * stranger flags differ from what was kept (or nothing was kept), what was kept of them is
   * forgotten, and of every conversation when they are, or were, a guest. True when forgotten.
   */
  personChanged(user: string, now: { guest: boolean; stranger: boolean }): Promise<boolean>;
  /** The app's client, for callers that have none at hand (it exists once the app does). */
  bind(client: webApi.WebClient): void;
  /** Who the bot is, as Slack named it at start (`auth.test`): the rule need not ask again. */
  knowBot(bot: BotIdentity): void;
}

/** What an ask is for. */
export interface AudienceAsk {
  /** A choice to share there anyway is asked about: a shared channel's members are read too. */
  members?: boolean | undefined;
}

/** The bot's organization and user, as `auth.test` names them. */
export interface BotIdentity extends Organization {
  userId: string | undefined;
}

export interface ConversationAudienceOptions {
  logger: Logger;
  clock: Clock;
  /** How long an answer is kept. @default 5 minutes */
  ttlMs?: number | undefined;
  /** How long a failed lookup is kept, so a burst of links makes one call. @default 30 s */
  failureTtlMs?: number | undefined;
  /**
   * With replicas: the shared marks a forget moves, read before a kept answer is trusted, so that
   * an event that reached one replica is heeded by all of them at once.
   */
  marks?: ForgetMarks | undefined;
}

/** Most members of a group DM looked up (Slack allows 9 people in one). */
const MAX_GROUP_MEMBERS = 16;

/**
 * Most members of a channel looked up (each person once, then kept): a larger channel is "not
 * known", so its figures are held (the rule: what is not known is not allowed). Looking up more
 * would spend minutes of `users.info` (Tier 4) on one answer.
 */
export const MAX_CHANNEL_MEMBERS = 500;

/** People looked up at once. */
const LOOKUPS_AT_ONCE = 8;

/** What a kept answer was asked under: the shared marks as they were (none without replicas). */
type Marks = readonly (string | undefined | typeof UNREAD)[];
const UNREAD: unique symbol = Symbol('the mark could not be read');
/** The mark every kept answer heeds (someone was made a guest). */
const EVERYONE = 'everyone';
const sameMarks = (a: Marks, b: Marks) =>
  a.length === b.length && a.every((mark, i) => mark !== UNREAD && mark === b[i]);

interface ConversationInfo {
  is_im?: boolean;
  is_mpim?: boolean;
  is_member?: boolean;
  is_shared?: boolean;
  is_ext_shared?: boolean;
  is_org_shared?: boolean;
  is_pending_ext_shared?: boolean;
  user?: string;
}

/** The organization a person or the bot belongs to: its Enterprise Grid org, else its workspace. */
interface Organization {
  teamId: string | undefined;
  enterpriseId: string | undefined;
}

/** What `users.info` says of a person, as far as figures go. */
interface PersonInfo extends Organization {
  guest: boolean;
  stranger: boolean;
}

/** Where figures would be read, from what Slack said of the conversation. */
export function roomOf(audience: Audience): Room {
  if (audience.kind === 'unknown') return { kind: 'unknown', reason: audience.reason };
  // Its members were not looked up (they may include guests), so who reads it is not known: a
  // workflow step can post where the bot cannot.
  if (audience.kind === 'internal' && !audience.botIsMember)
    return { kind: 'unknown', reason: 'the app is not in it; /invite it there' };
  // Its members as read: a choice to share there anyway never lifts a guest among them.
  if (audience.kind === 'external') return { kind: 'external', guests: audience.guests, unread: audience.unread };
  return audience.guests ? { kind: 'guests' } : { kind: 'internal' };
}

const sameOrganization = (a: Organization, b: Organization) =>
  (a.teamId !== undefined && a.teamId === b.teamId) ||
  (a.enterpriseId !== undefined && a.enterpriseId === b.enterpriseId);

class UnknownAudience extends Error {
  override name = 'UnknownAudience';
}

/**
 * Answers "may figures be shown in this conversation?" from `conversations.info` and the people in
 * it (`conversations.members`, then `users.info` of each, kept), keeping each answer a few minutes
 * and a failure a little while: one lookup per conversation, however many links are shared in it
 * at once. With replicas a kept answer is trusted only while the shared marks have not moved.
 */
export function conversationAudience(options: ConversationAudienceOptions): ConversationAudience {
  const { logger, clock, marks } = options;
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const failureTtlMs = Math.min(options.failureTtlMs ?? 30_000, ttlMs);
  const answers: LRUCache<string, { answer: Promise<Audience>; marks: Marks }> = ttlCache({ max: 5_000, ttlMs, clock });
  const people: LRUCache<string, { info: Promise<PersonInfo>; marks: Marks }> = ttlCache({
    max: 20_000,
    ttlMs,
    clock,
  });
  let bot: Promise<BotIdentity> | undefined;
  const warned = new Set<string>();

  const markOf = (key: string) => (marks ? marks.read(key).catch((): typeof UNREAD => UNREAD) : undefined);
  const marksOf = (key: string): Promise<Marks> =>
    marks ? Promise.all([key, EVERYONE].map((each) => markOf(each))) : Promise.resolve([]);
  const move = async (key: string) => {
    try {
      await marks?.move(key);
    } catch (error) {
      // The other replicas learn it when what they kept expires (30 s with replicas).
      logger.warn('Could not tell the other replicas to forget who reads a conversation', { key, error });
    }
  };

  const botOrganization = (client: webApi.WebClient) => {
    bot ??= client.auth.test().then(
      (answer) => ({
        teamId: answer.team_id,
        enterpriseId: answer.enterprise_id || undefined,
        userId: answer.user_id,
      }),
      (error: unknown) => {
        bot = undefined;
        throw error;
      },
    );
    return bot;
  };

  /**
   * What Slack says of `user`, kept; `current`: the shared marks (`person:<user>`, then everyone's)
   * it must have been asked under (else any kept answer: without replicas there are none).
   */
  const personOrganization = (client: webApi.WebClient, user: string, current?: Marks) => {
    const kept = people.get(user);
    if (kept && (current === undefined || sameMarks(kept.marks, current))) return kept.info;
    const info = client.users.info({ user }).then((answer) => {
      const person = answer.user as
        | {
            team_id?: string;
            enterprise_user?: { enterprise_id?: string };
            is_restricted?: boolean;
            is_ultra_restricted?: boolean;
            is_stranger?: boolean;
          }
        | undefined;
      if (!person?.team_id) throw new UnknownAudience(`users.info named no team for ${user}`);
      return {
        teamId: person.team_id,
        enterpriseId: person.enterprise_user?.enterprise_id,
        guest: person.is_restricted === true || person.is_ultra_restricted === true,
        stranger: person.is_stranger === true,
      };
    });
    const entry = { info, marks: current ?? (marks ? [UNREAD] : []) };
    people.set(user, entry);
    info.catch(() => {
      if (people.peek(user) === entry) people.delete(user);
    });
    return info;
  };

  /**
   * Every person of `users`, looked up a few at a time. With replicas each kept answer is trusted
   * only under the shared marks as they are now, as a person's own ask is: someone made a guest
   * on another replica reads as a guest here at once, among a channel's members too.
   */
  const everyone = async (client: webApi.WebClient, users: readonly string[]) => {
    const found: PersonInfo[] = [];
    const all = await markOf(EVERYONE);
    const lookUpOne = async (user: string) =>
      personOrganization(client, user, marks ? [await markOf(`person:${user}`), all] : undefined);
    for (let i = 0; i < users.length; i += LOOKUPS_AT_ONCE)
      found.push(...(await Promise.all(users.slice(i, i + LOOKUPS_AT_ONCE).map(lookUpOne))));
    return found;
  };

  async function lookUp(client: webApi.WebClient, conversation: string, ask: AudienceAsk): Promise<Audience> {
    const answer = await client.conversations.info({ channel: conversation });
    const info = (answer.channel ?? {}) as ConversationInfo;
    const shared = info.is_ext_shared || info.is_pending_ext_shared || (info.is_shared && !info.is_org_shared);
    const channel = !info.is_im && !info.is_mpim;
    // A channel the bot is not in gets no post from it (and its members may not be listed to it).
    if (channel && info.is_member !== true)
      return shared ? { kind: 'external', unread: 'app-not-in' } : { kind: 'internal', botIsMember: false };
    // Without a choice a shared channel holds its figures whoever is in it: its members are read
    // only when a choice is asked about (up to 500 users.info calls).
    if (channel && shared && !ask.members) return { kind: 'external', unread: 'not-asked' };
    // A shared channel's members are read too: a choice to share there anyway never lifts a
    // guest of our own among them (what cannot be read counts as one).
    const readers = shared
      ? await readersOf(client, conversation, info).catch((error: unknown): { failed: string } => ({
          failed: failed('is in a shared conversation', error, { conversation }),
        }))
      : await readersOf(client, conversation, info);
    if (typeof readers === 'object' && 'failed' in readers) return { kind: 'external', unread: readers };
    if (readers === 'too-many') {
      if (shared) return { kind: 'external', unread: 'too-many' };
      throw new UnknownAudience(`more than ${MAX_CHANNEL_MEMBERS} people to look up`);
    }
    if (readers === 'bot-not-in') return { kind: 'internal', botIsMember: false };
    const { self, people } = readers;
    const ours = (reader: PersonInfo) => !reader.stranger && sameOrganization(reader, self);
    const guests = people.some((reader) => reader.guest && ours(reader));
    // Someone of another organization among the readers makes it shared, even where Slack gives
    // them the same team id; a DM or group DM with a guest too (it is that guest's conversation).
    if (shared || people.some((reader) => !ours(reader)) || ((info.is_im || info.is_mpim) && guests))
      return guests ? { kind: 'external', guests: 'some' } : { kind: 'external' };
    return guests ? { kind: 'internal', botIsMember: true, guests } : { kind: 'internal', botIsMember: true };
  }

  /**
   * Who reads `conversation` besides the bot, each looked up (kept); `bot-not-in`: a group DM
   * without the bot; `too-many`: a channel with more members than are looked up.
   */
  async function readersOf(
    client: webApi.WebClient,
    conversation: string,
    info: ConversationInfo,
  ): Promise<{ self: BotIdentity; people: PersonInfo[] } | 'bot-not-in' | 'too-many'> {
    const self = await botOrganization(client);
    let others: string[];
    if (info.is_im) {
      if (!info.user) throw new UnknownAudience('conversations.info named nobody in the DM');
      others = [info.user];
    } else {
      const max = info.is_mpim ? MAX_GROUP_MEMBERS : MAX_CHANNEL_MEMBERS;
      const members = await membersOf(client, conversation, max + 1);
      if (info.is_mpim && self.userId && !members.includes(self.userId)) return 'bot-not-in';
      others = members.filter((member) => member !== self.userId);
      if (others.length > max) {
        if (!info.is_mpim) return 'too-many';
        throw new UnknownAudience(`more than ${max} people to look up`);
      }
    }
    return { self, people: await everyone(client, others) };
  }

  const failed = (what: string, error: unknown, fields: Record<string, string>) => {
    const reason = slackErrorCode(error) ?? (error instanceof Error ? error.message : String(error));
    // Once per kind of failure: a missing scope would otherwise log at every link.
    const level = warned.has(reason) ? 'debug' : 'warn';
    warned.add(reason);
    logger[level](`Could not tell who ${what}: its figures stay hidden`, { ...fields, slackError: reason });
    return reason;
  };

  let bound: webApi.WebClient | undefined;
  return {
    knowBot(identity) {
      bot = Promise.resolve(identity);
    },
    bind(client) {
      bound = client;
      // Who the bot is, asked now rather than in the first figures' way (a failure is asked again then).
      botOrganization(client).catch(() => undefined);
    },
    async forget(conversation) {
      answers.delete(conversation);
      answers.delete(withMembers(conversation));
      await move(`conversation:${conversation}`);
    },
    async personChanged(user, now) {
      const kept = people.peek(user);
      const before = kept ? await kept.info.catch(() => undefined) : undefined;
      // A profile or status change: nothing the rule reads changed, so nothing is asked again.
      if (before && before.guest === now.guest && before.stranger === now.stranger) return false;
      people.delete(user);
      await move(`person:${user}`);
      // Made a guest (or no longer one): every channel they are in changed.
      if (now.guest || before?.guest) {
        answers.clear();
        people.clear();
        await move(EVERYONE);
      }
      return true;
    },
    async person(user, client = bound): Promise<Person> {
      if (!client) return { kind: 'unknown', reason: 'no Slack client yet' };
      try {
        const current = await marksOf(`person:${user}`);
        const [self, info] = await Promise.all([botOrganization(client), personOrganization(client, user, current)]);
        if (info.stranger || !sameOrganization(info, self)) return { kind: 'stranger' };
        return info.guest ? { kind: 'guest' } : { kind: 'member' };
      } catch (error) {
        return { kind: 'unknown', reason: failed('a person is', error, { user }) };
      }
    },
    async of(conversation, client = bound, ask = {}) {
      const current = await marksOf(`conversation:${conversation}`);
      // An answer with a shared channel's members read is kept apart from one without.
      const key = ask.members ? withMembers(conversation) : conversation;
      const kept = answers.get(key);
      if (kept && sameMarks(kept.marks, current)) return kept.answer;
      // Asked before the app exists: not known, and not kept (the next ask, with a client, looks).
      if (!client) {
        if (!warned.has('no client')) logger.warn('Asked who is in a conversation before the Slack app was bound');
        warned.add('no client');
        return { kind: 'unknown', reason: 'no Slack client yet' };
      }
      const asked = lookUp(client, conversation, ask).catch(
        (error: unknown): Audience => ({
          kind: 'unknown',
          reason: failed('is in a conversation', error, { conversation }),
        }),
      );
      const entry = { answer: asked, marks: current };
      answers.set(key, entry);
      void asked.then((audience) => {
        // A failure, the members' read included, is kept a little while: Slack is asked again soon.
        const failure =
          audience.kind === 'unknown' || (audience.kind === 'external' && typeof audience.unread === 'object');
        if (failure && answers.peek(key) === entry) answers.set(key, entry, { ttl: failureTtlMs });
      });
      return asked;
    },
  };
}

/** Where an answer with a shared channel's members read is kept. */
const withMembers = (conversation: string) => `${conversation} with members`;

/** The members of a conversation, page by page, stopping once there are `enough`. */
async function membersOf(client: webApi.WebClient, conversation: string, enough: number): Promise<string[]> {
  const members: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.conversations.members({
      channel: conversation,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    members.push(...(page.members ?? []));
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor && members.length < enough);
  return members;
}

/** A conversation id Slack can be asked about (not `COMPOSER`, not a person's id). */
export const isConversationId = (id: string | undefined): id is string =>
  id !== undefined && id !== 'COMPOSER' && /^[CGD][A-Z0-9]{2,}$/.test(id);

/**
 * Why a report or watch card should not go into `conversation` unasked: it is shared with another
 * organization (and whether a choice may share it there anyway, as the figures rule says with
 * `policy`), or Slack could not say; undefined for the organization's own conversations and a
 * person's DM with the bot (named by their user id).
 */
export async function sharingDoubt(
  audience: ConversationAudience,
  conversation: string,
  client?: webApi.WebClient,
  policy?: FiguresPolicy,
): Promise<SharingDoubt | undefined> {
  if (!isConversationId(conversation)) return undefined;
  // A choice is asked about: a shared channel's members are read.
  const known = await audience.of(conversation, client, { members: true });
  if (known.kind === 'internal') return undefined;
  if (known.kind === 'unknown') return 'unknown';
  const chosen = figuresWithheld({ room: roomOf(known), person: { kind: 'none' }, chosenAnyway: true }, policy);
  if (!chosen) return 'external';
  return chosen.why === 'guests-in-room' ? 'external-guests' : 'external-unread';
}

/**
 * The private answer to a channel watch asked for where its card could not go as asked: a channel
 * the bot is not in (its card could never be posted: how to invite it), or one shared with another
 * organization (its card shows sales and revenue: for the person, or there anyway where a choice
 * may lift it); undefined where the channel is the organization's own and the bot is in it.
 */
export async function sharedChannelWatchRefusal(
  audience: ConversationAudience,
  channelId: string,
  event: { id: string; label: string },
  conditions: string,
  policy?: FiguresPolicy,
): Promise<SlackMessage | undefined> {
  const command = `watch ${event.id}${conditions.trim() ? `: ${conditions.trim()}` : ''}`;
  if (isConversationId(channelId) && !channelId.startsWith('D')) {
    // Asked as sharingDoubt asks (with the members of a shared channel): one lookup for both.
    const known = await audience.of(channelId, undefined, { members: true });
    const notIn =
      known.kind === 'internal' ? !known.botIsMember : known.kind === 'external' && known.unread === 'app-not-in';
    if (notIn) return notInChannelWatchMessage({ eventName: event.label, command });
  }
  const why = await sharingDoubt(audience, channelId, undefined, policy);
  if (!why) return undefined;
  return sharedChannelWatchMessage({ eventName: event.label, command, why });
}
