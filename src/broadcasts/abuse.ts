/**
 * The viewer endpoints' abuse limits (spec Limits, "Viewer page and verify"), counted in the
 * shared RateLimiter, so with Redis they hold across every process of a deployment:
 * - each channel: page lookups and verifies together, twice max_viewers per minute, at least 200;
 * - each source: 20 lookups of unknown channels per minute; past them every viewer lookup of
 *   that source is refused until the window frees (answering known tokens would still let it
 *   enumerate them);
 * - wrong passwords: 30 per source or 100 per channel in 5 minutes lock verify (only verify,
 *   and correct passwords never count).
 * Every refusal is 429 `too_many_requests` with `Retry-After` in whole seconds.
 */
import { AppError } from '../platform/errors/app-error.js';
import type { RateDecision, RateLimiter } from '../platform/rate-limit.js';

export const VIEWER_LIMITS = {
  windowMs: 60_000,
  channelMin: 200,
  channelPerViewer: 2,
  unknownPerSource: 20,
  passwordWindowMs: 5 * 60_000,
  wrongPerSource: 30,
  wrongPerChannel: 100,
} as const;

function refuse(d: RateDecision, reason: string): never {
  throw new AppError('too_many_requests', {
    headers: { 'Retry-After': String(d.retryAfterSeconds) },
    details: { retry_after: d.retryAfterSeconds, reason },
  });
}

export class ViewerGuard {
  constructor(private readonly limiter: RateLimiter) {}

  /** Before any lookup: a source past its unknown-channel lookups is refused. */
  async assertSourceAllowed(source: string): Promise<void> {
    const d = await this.limiter.peek(`bcv:unknown:${source}`, VIEWER_LIMITS.unknownPerSource, VIEWER_LIMITS.windowMs);
    if (!d.allowed) refuse(d, 'unknown_channel_lookups');
  }

  /** A lookup of a channel that does not exist (or a malformed token). */
  async countUnknown(source: string): Promise<void> {
    await this.limiter.hit(`bcv:unknown:${source}`, VIEWER_LIMITS.unknownPerSource, VIEWER_LIMITS.windowMs);
  }

  /** One page lookup or verify of a channel. */
  async hitChannel(channel: { id: string; maxViewers: number }): Promise<void> {
    const limit = Math.max(VIEWER_LIMITS.channelMin, VIEWER_LIMITS.channelPerViewer * channel.maxViewers);
    const d = await this.limiter.hit(`bcv:channel:${channel.id}`, limit, VIEWER_LIMITS.windowMs);
    if (!d.allowed) refuse(d, 'channel_rate');
  }

  /** Before a password is compared: either lock refuses. */
  async assertPasswordsAllowed(channelId: string, source: string): Promise<void> {
    const w = VIEWER_LIMITS.passwordWindowMs;
    const bySource = await this.limiter.peek(`bcv:wrong-src:${source}`, VIEWER_LIMITS.wrongPerSource, w);
    if (!bySource.allowed) refuse(bySource, 'wrong_passwords_source');
    const byChannel = await this.limiter.peek(`bcv:wrong-chan:${channelId}`, VIEWER_LIMITS.wrongPerChannel, w);
    if (!byChannel.allowed) refuse(byChannel, 'wrong_passwords_channel');
  }

  async countWrongPassword(channelId: string, source: string): Promise<void> {
    const w = VIEWER_LIMITS.passwordWindowMs;
    await this.limiter.hit(`bcv:wrong-src:${source}`, VIEWER_LIMITS.wrongPerSource, w);
    await this.limiter.hit(`bcv:wrong-chan:${channelId}`, VIEWER_LIMITS.wrongPerChannel, w);
  }
}
