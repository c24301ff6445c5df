import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InMemoryRateLimiter, type RateLimiter } from '../../src/platform/rate-limit.js';
import { RedisRateLimiter } from '../../src/platform/redis-rate-limit.js';
import { testRedisUrl } from '../support/services.js';

const redisUrl = testRedisUrl();

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const factories: Array<{ name: string; make: (now: () => number) => RateLimiter & { close?: () => Promise<void> } }> = [
  { name: 'in-memory', make: (now) => new InMemoryRateLimiter(now) },
];
if (redisUrl) factories.push({ name: 'redis', make: (now) => new RedisRateLimiter(redisUrl, `t:${randomUUID()}:`, now) });

describe.each(factories)('rate limiter: $name', ({ make }) => {
  it('allows `limit` hits per window, then refuses with the seconds until the oldest hit leaves', async () => {
    const c = clock();
    const rl = make(c.now);
    try {
      expect((await rl.hit('k', 3, 60_000)).allowed).toBe(true);
      c.advance(10_000);
      expect(await rl.hit('k', 3, 60_000)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await rl.hit('k', 3, 60_000)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await rl.hit('k', 3, 60_000)).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 50 });
      expect((await rl.hit('other', 3, 60_000)).allowed).toBe(true);
      c.advance(50_001);
      expect((await rl.hit('k', 3, 60_000)).allowed).toBe(true);
    } finally {
      await rl.close?.();
    }
  });

  it('peek does not record a hit', async () => {
    const c = clock();
    const rl = make(c.now);
    try {
      for (let i = 0; i < 5; i++) expect((await rl.peek('p', 1, 1000)).allowed).toBe(true);
      await rl.hit('p', 1, 1000);
      expect((await rl.peek('p', 1, 1000)).allowed).toBe(false);
    } finally {
      await rl.close?.();
    }
  });
});
