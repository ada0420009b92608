import { describe, expect, it } from 'vitest';
import { WatchShare } from '../../../src/reports/queue/watch-share.js';

describe('WatchShare (the in-process queue’s rule)', () => {
  it('owes the watches a slot first, then again only once a share period passed and a person took one since', () => {
    const share = new WatchShare({ everyWindows: 2, holdMs: 0 }, 1_000);
    expect(share.owed(0)).toBe(true);
    share.took(0);
    expect(share.owed(1_999)).toBe(false);
    // Long after, but no person got a slot since the watches' last: not owed (never two in a row).
    expect(share.owed(60_000)).toBe(false);
    share.personTook();
    expect(share.owed(60_000)).toBe(true);
  });
});
