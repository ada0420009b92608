import { describe, expect, it } from 'vitest';
import { describeRedis, parseRedisUrl, redisSecrets } from '../../src/store/redis-url.js';

const PASSWORD = 's3cr@t:Pa%ss';

describe('parseRedisUrl', () => {
  it('reads a password holding @, : and % pasted raw', () => {
    expect(parseRedisUrl(`redis://:${PASSWORD}@127.0.0.1:6380/3`)).toEqual({
      host: '127.0.0.1',
      port: 6380,
      db: 3,
      password: PASSWORD,
    });
  });

  it('reads the same password percent-encoded, with a user', () => {
    expect(parseRedisUrl(`redis://ops:${encodeURIComponent(PASSWORD)}@cache.example.com`)).toEqual({
      host: 'cache.example.com',
      port: 6379,
      db: 0,
      username: 'ops',
      password: PASSWORD,
    });
  });

  it('turns rediss:// into TLS, naming the host for SNI unless it is an IP', () => {
    expect(parseRedisUrl('rediss://cache.example.com:6380').tls).toEqual({ servername: 'cache.example.com' });
    expect(parseRedisUrl('rediss://127.0.0.1:6380').tls).toEqual({});
    expect(parseRedisUrl('rediss://[::1]:6380')).toMatchObject({ host: '::1', tls: {} });
    expect(parseRedisUrl('redis://127.0.0.1').tls).toBeUndefined();
  });

  it('refuses a broken address with a message that holds no part of the credentials', () => {
    for (const url of [`redis://:${PASSWORD}@`, `redis://:${PASSWORD}@host:99999`, `redis://:${PASSWORD}@host/x`]) {
      let message = '';
      try {
        parseRedisUrl(url);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, url).toMatch(/^STORE_URL: /);
      for (const part of ['s3cr', 'Pa%ss', 't:Pa', 'ss@']) expect(message, url).not.toContain(part);
    }
  });

  it('describes a connection without its credentials', () => {
    const text = describeRedis(parseRedisUrl(`rediss://ops:${PASSWORD}@cache.example.com:6380/1`));
    expect(text).toBe('rediss://cache.example.com:6380/1');
  });

  it('lists every form of the password the log scrubber must hide', () => {
    expect(redisSecrets(`redis://:${PASSWORD}@127.0.0.1:6379`)).toEqual(
      expect.arrayContaining([`:${PASSWORD}`, PASSWORD, encodeURIComponent(PASSWORD)]),
    );
    expect(redisSecrets('sqlite://./data/x.sqlite')).toEqual([]);
  });
});
