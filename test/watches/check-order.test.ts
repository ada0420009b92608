import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { olderCheckAfterNewer } from './check-order.js';

const opened: StoreHandle[] = [];
afterEach(async () => {
  for (const handle of opened.splice(0)) await handle.close();
});

describe('one check at a time per event, in one process', () => {
  it('drops a check whose report was read before the one a check carried meanwhile recorded', async () => {
    const handle = await openStore('sqlite://:memory:');
    opened.push(handle);
    const { said, check, condition } = await olderCheckAfterNewer({ newer: handle, older: handle });
    // Only the newer check was carried: no alert on the older figure, no card that showed it.
    expect(said).toEqual(['card -', 'card 300']);
    expect(check).toMatchObject({ checks: 1, report: { ticketsSold: 300 } });
    expect(condition).toMatchObject({ armed: true, crossings: 0, lastValue: 300 });
  });
});
