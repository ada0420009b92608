import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { useRedis } from '../helpers/redis-server.js';
import { olderCheckAfterNewer } from './check-order.js';

const redis = useRedis();

describe('one check at a time per event, across replicas on Redis', () => {
  it('drops a check another replica read before the one it carried meanwhile recorded', async () => {
    // Two handles, as two replicas have: only Redis keeps one's check from the other's.
    const [newer, older] = [await openStore(`${redis.url}/4`), await openStore(`${redis.url}/4`)];
    redis.closers.push(
      () => newer.close(),
      () => older.close(),
    );
    const { said, check, condition } = await olderCheckAfterNewer({ newer, older });
    expect(said).toEqual(['card -', 'card 300']);
    expect(check).toMatchObject({ checks: 1, report: { ticketsSold: 300 } });
    expect(condition).toMatchObject({ armed: true, crossings: 0, lastValue: 300 });
  });
});
