import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** A person in the sandbox: one promo editor and one who is not, each in their own timezone. */
export interface SandboxUser {
  id: string;
  name: string;
  tz: string;
  editor: boolean;
}

export interface SandboxChannel {
  id: string;
  name: string;
  kind: 'channel' | 'dm';
  /** For a DM: the person it is with. */
  user?: string;
}

export interface SandboxFile {
  id: string;
  name: string;
  title: string;
  content: string;
}

export interface SandboxMessage {
  ts: string;
  channel: string;
  /** Who posted it: a person's id, or the bot. */
  author: string;
  text: string;
  blocks: unknown[];
  /** Only this person sees it (an ephemeral message). */
  ephemeralFor?: string | undefined;
  threadTs?: string | undefined;
  /** A reply also shown in the channel (`reply_broadcast`). */
  broadcast?: boolean | undefined;
  files?: SandboxFile[];
  metadata?: unknown;
  edited?: boolean;
  /** Cards the bot unfolded its links into (`chat.unfurl`), by URL. */
  unfurls?: Record<string, { blocks?: unknown[] }>;
  /** Work Object cards the bot unfolded its links into (`chat.unfurl` with `metadata.entities`), by URL. */
  entities?: Record<string, Record<string, unknown>>;
  /** A streamed message (`chat.startStream`): its chunks so far, and whether it still streams. */
  stream?: { chunks: unknown[]; streaming: boolean };
}

/** What one person has open beside the channel: the Work Object flexpane the bot presented for their click. */
export interface SandboxFlexpane {
  url: string;
  metadata?: Record<string, unknown> | undefined;
  error?: Record<string, unknown> | undefined;
}

export interface SandboxView {
  id: string;
  user: string;
  kind: 'modal' | 'home';
  view: Record<string, unknown>;
  /** Changes with every open and update: `views.update` with an older one is refused, as Slack does. */
  hash: string;
  /** Field errors from the last submission, by block id. */
  errors?: Record<string, string>;
  /** For a view pushed onto a modal (`response_action: 'push'`): the view under it, shown again when it closes. */
  previous?: string;
}

/** Where a response_url's posts land: the person, the channel, and the message it belongs to. */
export interface ResponseTarget {
  user: string;
  channel: string;
  messageTs?: string | undefined;
  /** The slash command this response_url answers: shown to everyone above its first `in_channel` answer, as Slack does. */
  command?: string | undefined;
  /**
   * The last message this response_url posted (a command has no message of its own): what a later
   * post with `replace_original` or `delete_original` acts on, as in Slack.
   */
  postedTs?: string | undefined;
}

/** Who a trigger_id was handed to, so the view it opens is theirs. */
export interface TriggerTarget {
  user: string;
  channel: string | undefined;
}

/** How many response_urls and triggers are kept; past that the oldest stop working. */
export interface SandboxLimits {
  /** @default 1000 (Slack lets each be used for 30 minutes) */
  responseUrls?: number;
  /** @default 100 (Slack's expire after 3 seconds) */
  triggers?: number;
}

export const BOT_ID = 'UEVENTOPS';
/** Who tells a person Slack's own answers (a command that does not exist). */
export const SLACKBOT_ID = 'USLACKBOT';
export const EDITORS_GROUP = 'SPROMOEDITORS';

export const SANDBOX_USERS: SandboxUser[] = [
  { id: 'UEDITOR01', name: 'Ada (promo editor)', tz: 'America/New_York', editor: true },
  { id: 'UVIEWER02', name: 'Ravi (not an editor)', tz: 'Asia/Kolkata', editor: false },
];

/** Everything the sandbox holds: channels, messages, views, in memory. */
export class SandboxState {
  readonly users = SANDBOX_USERS;
  readonly channels: SandboxChannel[] = [
    { id: 'CGENERAL01', name: 'general', kind: 'channel' },
    { id: 'COPS000002', name: 'ops', kind: 'channel' },
    ...SANDBOX_USERS.map((user) => ({
      id: `D${user.id.slice(1)}`,
      name: 'eventops',
      kind: 'dm' as const,
      user: user.id,
    })),
  ];
  readonly messages: SandboxMessage[] = [];
  readonly views = new Map<string, SandboxView>();
  readonly files = new Map<string, SandboxFile & { pending: boolean }>();
  /** Each person's open Work Object flexpane, by user id. */
  readonly flexpanes = new Map<string, SandboxFlexpane>();
  // Every command and click hands out one of each: bounded, so a long session (or a flood of
  // requests) cannot grow them without end.
  readonly #responseTargets: LRUCache<string, ResponseTarget>;
  readonly #triggers: LRUCache<string, TriggerTarget>;
  #ts = Math.floor(Date.now() / 1000);
  #ids = 0;
  /** Bumped on every change, so the page re-renders only when something happened. */
  version = 0;
  /** Told of every change (the messages kept across restarts are written then). */
  readonly #onChange: (() => void)[] = [];

  constructor(limits: SandboxLimits = {}) {
    this.#responseTargets = new LRUCache({ max: limits.responseUrls ?? 1000 });
    this.#triggers = new LRUCache({ max: limits.triggers ?? 100 });
  }

  /** A new response_url's id: random, so no one can post to a response_url they were not given. */
  addResponseTarget(target: ResponseTarget): string {
    const id = randomUUID();
    this.#responseTargets.set(id, target);
    return id;
  }

  responseTarget(id: string): ResponseTarget | undefined {
    return this.#responseTargets.get(id);
  }

  /** A new trigger_id, in Slack's `<seconds>.<id>` shape. */
  addTrigger(target: TriggerTarget): string {
    const id = `${Math.floor(Date.now() / 1000)}.${randomUUID()}`;
    this.#triggers.set(id, target);
    return id;
  }

  trigger(id: string): TriggerTarget | undefined {
    return this.#triggers.get(id);
  }

  nextTs(): string {
    this.#ts += 1;
    return `${this.#ts}.000100`;
  }

  /** A view's new hash, in Slack's `<seconds>.<id>` shape. */
  nextHash(): string {
    this.#ids += 1;
    return `${Math.floor(Date.now() / 1000)}.${this.#ids.toString(36)}${randomUUID().slice(0, 8)}`;
  }

  nextId(prefix: string): string {
    this.#ids += 1;
    return `${prefix}${String(this.#ids).padStart(8, '0')}`;
  }

  touch(): void {
    this.version += 1;
    for (const listener of this.#onChange) listener();
  }

  /** Calls `listener` after every change. */
  onChange(listener: () => void): void {
    this.#onChange.push(listener);
  }

  /**
   * The messages of an earlier start, kept with its store: they show again, and the bot's cards
   * and threads (whose ts it stored) are found and edited as before. New messages come after them.
   */
  restore(messages: readonly SandboxMessage[]): void {
    this.messages.splice(0, this.messages.length, ...messages);
    const latest = Math.max(0, ...messages.map((message) => Math.floor(Number(message.ts)) || 0));
    this.#ts = Math.max(this.#ts, latest);
    // A new file's id (F00000001) must not be a kept file's: the page opens a file by its id.
    const fileIds = messages.flatMap((message) =>
      (message.files ?? []).map((file) => Number(/\d+$/.exec(file.id)?.[0])),
    );
    this.#ids = Math.max(this.#ids, ...fileIds.filter(Number.isFinite));
    this.touch();
  }

  user(id: string): SandboxUser | undefined {
    return this.users.find((user) => user.id === id);
  }

  /** A channel id, or a person's id meaning the DM with them. */
  channelFor(id: string): SandboxChannel | undefined {
    return this.channels.find((channel) => channel.id === id || (channel.kind === 'dm' && channel.user === id));
  }

  post(message: Omit<SandboxMessage, 'ts'> & { ts?: string }): SandboxMessage {
    const posted: SandboxMessage = { ...message, ts: message.ts ?? this.nextTs() };
    this.messages.push(posted);
    this.touch();
    return posted;
  }

  find(channel: string, ts: string): SandboxMessage | undefined {
    return this.messages.find((message) => message.channel === channel && message.ts === ts);
  }

  /** A modal's stack of views, from the root to the top, of which `id` is one. */
  modalStack(id: string): SandboxView[] {
    const view = this.views.get(id);
    if (!view) return [];
    let root = view;
    while (root.previous && this.views.has(root.previous)) root = this.views.get(root.previous) as SandboxView;
    const stack = [root];
    for (let top = root; ; ) {
      const next = [...this.views.values()].find((each) => each.previous === top.id);
      if (!next) return stack;
      stack.push(next);
      top = next;
    }
  }

  /** Closes one view of a modal and the views pushed over it: the one under it shows again. */
  closeView(id: string): void {
    const stack = this.modalStack(id);
    const at = stack.findIndex((view) => view.id === id);
    for (const view of stack.slice(Math.max(0, at))) this.views.delete(view.id);
    this.touch();
  }

  /** What one person sees: everything public, and what was shown only to them. */
  visibleTo(userId: string) {
    const channels = this.channels.filter((channel) => channel.kind === 'channel' || channel.user === userId);
    const ids = new Set(channels.map((channel) => channel.id));
    return {
      version: this.version,
      users: this.users,
      channels,
      messages: this.messages.filter(
        (message) => ids.has(message.channel) && (!message.ephemeralFor || message.ephemeralFor === userId),
      ),
      views: [...this.views.values()].filter((view) => view.user === userId),
      flexpane: this.flexpanes.get(userId),
    };
  }
}
