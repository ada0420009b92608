import { describe, expect, it } from 'vitest';
import { createLogger, withRequestId } from '../src/logger.js';

describe('the logger within a request', () => {
  it('names the request on every line, and a line’s own fields only on that line', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
    withRequestId('req12345', () => {
      logger.info('first', { eventId: 'evt_1' });
      logger.info('second');
      logger.warn('third', { attempt: 2 });
    });
    logger.info('outside');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.map((line) => line.requestId)).toEqual(['req12345', 'req12345', 'req12345', undefined]);
    expect(parsed[1]).not.toHaveProperty('eventId');
    expect(parsed[2]).not.toHaveProperty('eventId');
    expect(parsed[2]).toMatchObject({ attempt: 2 });
    expect(parsed[3]).not.toHaveProperty('attempt');
  });
});
