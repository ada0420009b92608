import { describe, expect, it } from 'vitest';
import { COUNTDOWN_EDITS_PER_MINUTE, WaitCountdown } from '../../../src/reports/queue/wait-countdown.js';
import { ManualClock } from '../../helpers/clocks.js';

describe('WaitCountdown', () => {
  it('edits a wait only once 10 s have passed since its last edit and the seconds shown changed', () => {
    const clock = new ManualClock(1_000_000);
    const countdown = new WaitCountdown(clock);
    const shown = { at: clock.now(), waitMs: 58_000 };
    clock.time += 9_999;
    expect(countdown.due(shown, 48_001)).toBe(false);
    clock.time += 1;
    expect(countdown.due(shown, 48_000)).toBe(true);
    // The same seconds shown (a wait that stands still, 58 s then 57.4 s): no edit.
    expect(countdown.due({ at: 0, waitMs: 58_000 }, 57_400)).toBe(false);
  });

  it(`edits at most ${COUNTDOWN_EDITS_PER_MINUTE} waits a minute for all messages, then again a minute on`, () => {
    const clock = new ManualClock(1_000_000);
    const countdown = new WaitCountdown(clock);
    const old = { at: 0, waitMs: 60_000 };
    const edits = Array.from({ length: COUNTDOWN_EDITS_PER_MINUTE + 5 }, () => countdown.due(old, 30_000));
    expect(edits.filter(Boolean)).toHaveLength(COUNTDOWN_EDITS_PER_MINUTE);
    expect(countdown.due(old, 30_000)).toBe(false);
    clock.time += 60_000;
    expect(countdown.due(old, 30_000)).toBe(true);
  });
});
