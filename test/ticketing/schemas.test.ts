import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createTicketingClient } from '../../src/ticketing/create-client.js';
import { eventSchema } from '../../src/ticketing/schemas.js';
import { limits } from '../helpers/ticketing.js';

const uuid = '3f2c1a9e-8b7d-4c6e-9f01-23456789abcd';

describe('eventSchema', () => {
  it('reads the spec fields, ignores unknown ones and prefixes a bare id', () => {
    const event = eventSchema.parse({
      id: uuid,
      startDate: '2026-12-01T19:00:00+05:45',
      endDate: '2026-12-01T22:00:00+05:45',
      timezone: 'Asia/Kathmandu',
      name: 'Jazz',
      brandNewField: { nested: true },
    });
    expect(event).toMatchObject({ id: `evt_${uuid}`, name: 'Jazz', timezone: 'Asia/Kathmandu' });
    expect(event.startsAtMs).toBe(Date.UTC(2026, 11, 1, 13, 15));
    expect(event).not.toHaveProperty('brandNewField');
  });

  it('keeps plain dates as dates, ending at the zone midnight after the last day', () => {
    const event = eventSchema.parse({
      id: `evt_${uuid}`,
      startDate: '2026-06-01',
      endDate: '2026-06-03',
      timezone: 'America/Los_Angeles',
      title: 'Festival',
    });
    expect(event.start).toEqual({ kind: 'date', date: { year: 2026, month: 6, day: 1 }, iso: '2026-06-01' });
    expect(new Date(event.endsAtMs).toISOString()).toBe('2026-06-04T07:00:00.000Z');
    expect(event.name).toBe('Festival');
  });

  it('treats a badly typed optional field as absent instead of failing the record', () => {
    const event = eventSchema.parse({
      id: `evt_${uuid}`,
      startDate: '2026-06-01T10:00:00Z',
      endDate: '2026-06-01T11:00:00Z',
      timezone: 'UTC',
      name: 42,
      status: ['x'],
    });
    expect(event.name).toBeUndefined();
    expect(event.status).toBeUndefined();
  });

  it.each([
    { startDate: '2026-06-01T10:00:00', endDate: '2026-06-01T11:00:00Z', timezone: 'UTC' },
    { startDate: '2026-06-01T10:00:00Z', endDate: '2026-06-01T11:00:00Z', timezone: 'Mars/Base' },
    { startDate: '2026-06-01T12:00:00Z', endDate: '2026-06-01T11:00:00Z', timezone: 'UTC' },
    { startDate: '2026-02-30', endDate: '2026-03-01', timezone: 'UTC' },
  ])('rejects a record the spec does not allow: %j', (fields) => {
    expect(eventSchema.safeParse({ id: `evt_${uuid}`, ...fields }).success).toBe(false);
  });
});

describe('a page with one bad record', () => {
  it('skips and logs the bad record and keeps the rest of the page', async () => {
    const good = {
      id: `evt_${uuid}`,
      startDate: '2026-06-01T10:00:00Z',
      endDate: '2026-06-01T11:00:00Z',
      timezone: 'UTC',
    };
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          data: [good, { id: 'evt_broken', startDate: 'yesterday' }, 'not even an object'],
          pagination: { nextCursor: null, hasMore: false },
          somethingNew: true,
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const lines: string[] = [];
    const client = createTicketingClient({
      apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiKey: 'sk_secret_key_for_test',
      limits: limits(),
      logger: createLogger({ write: (line) => lines.push(line), secrets: ['sk_secret_key_for_test'] }),
    });
    try {
      const page = await client.listEvents();
      expect(page.items.map((event) => event.id)).toEqual([good.id]);
      expect(page.skipped).toBe(2);
      expect(page.hasMore).toBe(false);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain('evt_broken');
      expect(lines.join('\n')).not.toContain('sk_secret_key_for_test');
    } finally {
      await client.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
