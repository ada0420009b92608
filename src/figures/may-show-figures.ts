/**
 * The one rule for who may read sales and revenue (docs/who-sees-figures.md). Figures (sold,
 * capacity, revenue, promo codes and their redemptions, forecasts) go only where everyone who can
 * read them belongs to the organization and is not a guest, unless an editor chose otherwise for
 * that conversation; what is not known is not allowed.
 *
 * Structural, as `Mrkdwn` is for markup: every render function that prints figures takes them as
 * `Shown<T>`, and `showFigures` below is the only way to make one. A new path that hands a render
 * function a report it did not pass through here does not compile.
 */

declare const shown: unique symbol;

/** Figures this rule let through for one reader and one place. */
export type Shown<T> = T & { readonly [shown]: 'Shown' };

/** Where a message with figures would be read. */
export type Room =
  /** Seen by the asking person alone: an ephemeral or private reply, their App Home, their DM with the bot. */
  | { kind: 'private' }
  /** A conversation of the organization alone. */
  | { kind: 'internal' }
  /** A conversation of the organization with guests of the workspace among its members. */
  | { kind: 'guests' }
  /**
   * Shared with another organization (Slack Connect), or a DM or group DM with someone of one.
   * `guests`: guests of the workspace are among its members; `unread`: its members were not read,
   * and why. Neither: they were read, and none is a guest.
   */
  | { kind: 'external'; guests?: 'some' | undefined; unread?: MembersUnread | undefined }
  /** Slack could not say. */
  | { kind: 'unknown'; reason: string };

/**
 * Why a shared conversation's members were not read: lasting, the app is not in it (`app-not-in`)
 * or it has more members than are looked up (`too-many`); or for now, nobody asked about a choice
 * there (`not-asked`) or Slack failed (`failed`).
 */
export type MembersUnread = 'app-not-in' | 'too-many' | 'not-asked' | { failed: string };

/** Who asked (a person's report, a click, their own watch); `none` for what no one person asked (a channel's card). */
export type Person =
  | { kind: 'member' }
  /** `is_restricted` (multi-channel) or `is_ultra_restricted` (single-channel) guest. */
  | { kind: 'guest' }
  /** Of another organization, seen through Slack Connect (`is_stranger`, or another team). */
  | { kind: 'stranger' }
  | { kind: 'unknown'; reason: string }
  | { kind: 'none' };

/** What the operator chose (`FIGURES_FOR_GUESTS`). */
export interface FiguresPolicy {
  /** Guests of the workspace may read figures. @default false */
  guestsMaySee: boolean;
}

export const DEFAULT_FIGURES_POLICY: FiguresPolicy = { guestsMaySee: false };

/** Why figures were held back. */
export type Withheld =
  | { why: 'shared' }
  | { why: 'guest' }
  /** Guests of the workspace are members of the conversation. */
  | { why: 'guests-in-room' }
  | { why: 'stranger' }
  /** A choice to share there anyway, where the members cannot be read for good (the app is not in it, too many). */
  | { why: 'members-unread'; because: 'app-not-in' | 'too-many' }
  | { why: 'not-known'; reason: string; about: 'conversation' | 'person' };

export interface Reader {
  room: Room;
  person: Person;
  /**
   * Someone who may change the watch or post chose to share the figures in this conversation
   * anyway, after Slack said it is shared (a `sharedConfirmed` watch, a Post in channel click).
   * It lifts only `shared`: never an unknown answer, a guest (asking, or among the members) or a
   * stranger.
   */
  chosenAnyway?: boolean | undefined;
}

/** The rule itself: undefined when the figures may go, else why not. */
export function figuresWithheld(reader: Reader, policy: FiguresPolicy = DEFAULT_FIGURES_POLICY): Withheld | undefined {
  switch (reader.person.kind) {
    case 'guest':
      if (!policy.guestsMaySee) return { why: 'guest' };
      break;
    case 'stranger':
      return { why: 'stranger' };
    case 'unknown':
      return { why: 'not-known', reason: reader.person.reason, about: 'person' };
    case 'member':
    case 'none':
      break;
  }
  switch (reader.room.kind) {
    case 'private':
    case 'internal':
      return undefined;
    case 'guests':
      // A choice to share anyway was made for another organization, never for guests.
      return policy.guestsMaySee ? undefined : { why: 'guests-in-room' };
    case 'external':
      if (!reader.chosenAnyway) return { why: 'shared' };
      // A choice was made for the other organization, never for guests of our own among the
      // members, nor for members nobody could read.
      if (reader.room.guests === 'some') return policy.guestsMaySee ? undefined : { why: 'guests-in-room' };
      return reader.room.unread === undefined ? undefined : membersUnread(reader.room.unread);
    case 'unknown':
      return { why: 'not-known', reason: reader.room.reason, about: 'conversation' };
  }
}

/** A choice where the members were not read: lasting, or not known for now. */
function membersUnread(unread: MembersUnread): Withheld {
  if (unread === 'app-not-in' || unread === 'too-many') return { why: 'members-unread', because: unread };
  const reason = unread === 'not-asked' ? 'its members were not read' : unread.failed;
  return { why: 'not-known', reason, about: 'conversation' };
}

/**
 * The gate: `figures` as `Shown` when `reader` may read them, else why not. The only maker of
 * `Shown` values.
 */
export function showFigures<T>(
  figures: T,
  reader: Reader,
  policy: FiguresPolicy = DEFAULT_FIGURES_POLICY,
): { shown: Shown<T> } | { withheld: Withheld } {
  const withheld = figuresWithheld(reader, policy);
  return withheld ? { withheld } : { shown: figures as Shown<T> };
}

/** `showFigures`, for callers that only render: the figures, or undefined with nothing shown. */
export function shownOrNone<T>(figures: T, reader: Reader, policy?: FiguresPolicy): Shown<T> | undefined {
  const gate = showFigures(figures, reader, policy);
  return 'shown' in gate ? gate.shown : undefined;
}
