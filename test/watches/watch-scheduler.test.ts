import { expect, it, onTestFinished } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { WatchScheduler } from '../../src/watches/watch-scheduler.js';
import type { WatchTurn } from '../../src/watches/watch-service.js';

it('tells each turn once, and goes on turning when the listener throws', async () => {
  const turns: WatchTurn[] = [
    { kind: 'checked', eventId: 'evt_1' },
    { kind: 'failed', eventId: 'evt_2', error: new Error('boom') },
    { kind: 'turn-elsewhere' },
  ];
  let taken = 0;
  const heard: string[] = [];
  const scheduler = new WatchScheduler({
    turn: async () => {
      const turn = turns[taken++];
      if (!turn) throw new Error('no turn left');
      return turn;
    },
    clock: { now: () => 0 },
    logger: silentLogger,
    retryMs: 1,
    pollMs: 60_000,
    onTurn: (outcome) => {
      heard.push(outcome);
      throw new Error('a listener that throws');
    },
  });
  onTestFinished(() => scheduler.stop());
  scheduler.start();
  await expect.poll(() => heard.length).toBeGreaterThanOrEqual(5);
  // Once each, in order (a turn told twice would show an 'error' after its own outcome).
  expect(heard.slice(0, 5)).toEqual(['checked', 'failed', 'turn-elsewhere', 'error', 'error']);
});
