/**
 * The rate limiter over Redis (sliding window in a sorted set per key), shared by every
 * process of a deployment. One Lua script per hit keeps check-and-record atomic.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RateDecision, RateLimiter } from './rate-limit.js';

// KEYS[1] = bucket; ARGV = now, window, limit, member, record(1/0)
const SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, 0, tonumber(oldest[2]) + window - now}
end
if ARGV[5] == '1' then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
end
return {1, limit - count, 0}
`;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'parley:rl:',
    private readonly now: () => number = Date.now,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 });
  }

  hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.run(key, limit, windowMs, true);
  }

  peek(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.run(key, limit, windowMs, false);
  }

  private async run(key: string, limit: number, windowMs: number, record: boolean): Promise<RateDecision> {
    const [allowed, remaining, waitMs] = (await this.redis.eval(
      SCRIPT,
      1,
      this.prefix + key,
      this.now(),
      windowMs,
      limit,
      randomUUID(),
      record ? '1' : '0',
    )) as [number, number, number];
    return { allowed: allowed === 1, remaining, retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
