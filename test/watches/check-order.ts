/**
 * One scenario for the per-event check section, run on one process (SQLite) and across two store
 * handles on a real redis-server: a newer check holds the event's check (held before it records),
 * an older one arrives meanwhile. The older must wait, then find the newer recorded, and be dropped.
 */

import { silentLogger } from '../../src/logger.js';
import type { KeyValueStore } from '../../src/store/key-value-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import type { WatchChat, WatchMessages } from '../../src/watches/watch-chat.js';
import { WatchService } from '../../src/watches/watch-service.js';
import { WatchStore } from '../../src/watches/watch-store.js';
import { sampleReport } from '../helpers/sample-report.js';

const T0 = Date.parse('2026-12-01T09:00:00Z');
const MINUTE = 60_000;
export const EVENT = { id: 'evt_1', name: 'Jazz Night', startsAtMs: T0 + 86_400_000, endsAtMs: T0 + 90_000_000 };

const messages: WatchMessages<string> = {
  card: (input) => `card ${input.check?.report.ticketsSold ?? '-'}`,
  alert: (input) => `alert ${input.value}`,
  summary: () => 'summary',
  paused: () => 'paused',
};

/** Slack as far as the watch goes: what it posted and edited, in order. */
function chat(said: string[]): WatchChat<string> {
  let ts = 0;
  return {
    postCard: async (_channel, message) => {
      said.push(message);
      return `1764579600.${String(++ts).padStart(6, '0')}`;
    },
    updateCard: async (_channel, _ts, message) => {
      said.push(message);
    },
    reply: async (_channel, _ts, message) => {
      said.push(message);
    },
    findCard: async () => undefined,
    findReply: async () => false,
    notify: async () => undefined,
    channelRefusal: () => undefined,
  };
}

/** A replica's watch store whose next read of an event's watches waits until `open` (the check holds the event then). */
class HeldStore extends WatchStore {
  hold: { reached: () => void; open: Promise<void> } | undefined;
  override async ofEvent(eventId: string) {
    const hold = this.hold;
    this.hold = undefined;
    if (hold) {
      hold.reached();
      await hold.open;
    }
    return super.ofEvent(eventId);
  }
}

/** A signal and its promise. */
function signal() {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fire: () => fire(), fired };
}

/**
 * `newer` holds the event (its check read at 2 min, 300 sold) while `older` (read at 1 min, 450
 * sold, over the 400 the watch alerts on) arrives; returns what Slack was told and what is recorded.
 */
export async function olderCheckAfterNewer(handles: { newer: StoreHandle; older: StoreHandle }) {
  const said: string[] = [];
  const service = (store: WatchStore, claims: StoreHandle['claims'], t: number) =>
    new WatchService<string>({
      store,
      claims,
      chat: chat(said),
      messages,
      reports: { spare: async () => undefined },
      rule: { limit: 3, windowMs: MINUTE, minIntervalMs: 10 * MINUTE },
      clock: { now: () => t },
      logger: silentLogger,
    });
  const newerStore = new HeldStore(handles.newer.keyValue, silentLogger);
  await service(newerStore, handles.newer.claims, T0).watch({
    channel: 'C0OPS',
    personal: false,
    event: EVENT,
    userId: 'U0ALICE',
    conditions: [{ kind: 'figure', field: 'ticketsSold', op: '>=', value: 400 }],
  });
  const held = signal();
  const open = signal();
  newerStore.hold = { reached: held.fire, open: open.fired };
  const newer = service(newerStore, handles.newer.claims, T0 + 2 * MINUTE).observe(
    EVENT.id,
    sampleReport({ eventId: EVENT.id, ticketsSold: 300 }),
  );
  await held.fired;
  // The older check asks for the event's section (or, without one, is carried at once).
  const asked = signal();
  const spied: KeyValueStore = {
    ...handles.older.keyValue,
    section: (key, work, options) => {
      asked.fire();
      return handles.older.keyValue.section(key, work, options);
    },
  };
  const older = service(new WatchStore(spied, silentLogger), handles.older.claims, T0 + MINUTE).observe(
    EVENT.id,
    sampleReport({ eventId: EVENT.id, ticketsSold: 450 }),
  );
  await Promise.race([asked.fired, older]);
  open.fire();
  await Promise.all([newer, older]);
  const store = new WatchStore(handles.newer.keyValue, silentLogger);
  return {
    said,
    check: await store.lastCheck(EVENT.id),
    condition: (await store.get('C0OPS', EVENT.id))?.conditions[0],
  };
}
