/**
 * A generic rate limiter: a fixed number of hits per key in a sliding window. The
 * in-process implementation serves one process; a Redis one (same interface) serves a
 * fleet. `rateLimitHook` answers 429 `too_many_requests` with an integer `Retry-After`.
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { AppError } from './errors/app-error.js';

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** Whole seconds until a hit would be allowed again (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Records a hit for `key` and says whether it is within `limit` per `windowMs`. */
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  /** Counts without recording (e.g. to check a lock before doing work). */
  peek(key: string, limit: number, windowMs: number): Promise<RateDecision>;
}

export class InMemoryRateLimiter implements RateLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.decide(key, limit, windowMs, true);
  }

  async peek(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.decide(key, limit, windowMs, false);
  }

  private decide(key: string, limit: number, windowMs: number, record: boolean): RateDecision {
    const now = this.now();
    this.sweep(now, windowMs);
    const list = (this.hits.get(key) ?? []).filter((t) => t > now - windowMs);
    if (list.length >= limit) {
      this.hits.set(key, list);
      const retryAfterSeconds = Math.max(1, Math.ceil((list[0]! + windowMs - now) / 1000));
      return { allowed: false, remaining: 0, retryAfterSeconds };
    }
    if (record) list.push(now);
    this.hits.set(key, list);
    return { allowed: true, remaining: limit - list.length, retryAfterSeconds: 0 };
  }

  /** Drops idle keys now and then so memory stays bounded by active keys. */
  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, list] of this.hits)
      if (!list.length || list[list.length - 1]! <= now - Math.max(windowMs, 3_600_000)) this.hits.delete(k);
  }
}

export interface RateLimitRule {
  /** Bucket name + key, e.g. `voice-sample:${accountId}`. */
  key: (request: FastifyRequest) => string;
  limit: number;
  windowMs: number;
}

export function rateLimitHook(limiter: RateLimiter, rule: RateLimitRule): preHandlerAsyncHookHandler {
  return async (request) => {
    const d = await limiter.hit(rule.key(request), rule.limit, rule.windowMs);
    if (!d.allowed) {
      throw new AppError('too_many_requests', {
        headers: { 'Retry-After': String(d.retryAfterSeconds) },
        details: { retry_after: d.retryAfterSeconds },
      });
    }
  };
}
