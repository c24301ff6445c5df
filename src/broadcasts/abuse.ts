/**
 * The viewer endpoints' abuse limits (spec Limits, "Viewer page and verify"), counted in the
 * shared RateLimiter, so with Redis they hold across every process of a deployment. Every
 * limit is counted per source first (a client address, src/platform/http/source.ts), so one
 * address can never lock a channel for the others; a per-channel ceiling far above what one
 * source may do remains against floods and guessing from many addresses:
 * - each source and channel: page lookups and verifies together, twice max_viewers per
 *   minute, at least 200 (the spec's channel rate, so one client sees the spec's numbers);
 *   the channel as a whole `channelRateSources` times that;
 * - each source: 20 lookups of unknown channels per minute; past them every viewer lookup of
 *   that source is refused until the window frees (answering known tokens would still let it
 *   enumerate them);
 * - wrong passwords: 30 per source lock that source's verify; `wrongPerChannel` (default
 *   1000, from at least 34 sources) in 5 minutes lock the channel's verify for everyone, which
 *   still bounds a guesser with many addresses. A source that is locked is refused before its
 *   attempt counts anywhere, so one source adds at most 30 to the channel's count. Only
 *   verify is locked, and correct passwords never count.
 * Every refusal is 429 `too_many_requests` with `Retry-After` in whole seconds and a reason.
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
} as const;

export interface ChannelLimits {
  /** The channel's lookup ceiling, in multiples of one source's channel rate. */
  channelRateSources: number;
  /** Wrong passwords per channel per password window, all sources together. */
  wrongPerChannel: number;
}

export const DEFAULT_CHANNEL_LIMITS: ChannelLimits = { channelRateSources: 10, wrongPerChannel: 1000 };

function refuse(d: RateDecision, reason: string): never {
  throw new AppError('too_many_requests', {
    headers: { 'Retry-After': String(d.retryAfterSeconds) },
    details: { retry_after: d.retryAfterSeconds, reason },
  });
}

export class ViewerGuard {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: ChannelLimits = DEFAULT_CHANNEL_LIMITS,
  ) {}

  /** Before any lookup: a source past its unknown-channel lookups is refused. */
  async assertSourceAllowed(source: string): Promise<void> {
    const d = await this.limiter.peek(`bcv:unknown:${source}`, VIEWER_LIMITS.unknownPerSource, VIEWER_LIMITS.windowMs);
    if (!d.allowed) refuse(d, 'unknown_channel_lookups');
  }

  /** A lookup of a channel that does not exist (or a malformed token). */
  async countUnknown(source: string): Promise<void> {
    await this.limiter.hit(`bcv:unknown:${source}`, VIEWER_LIMITS.unknownPerSource, VIEWER_LIMITS.windowMs);
  }

  /** One page lookup or verify of a channel by `source`: its own rate first, then the channel's ceiling. */
  async hitChannel(channel: { id: string; maxViewers: number }, source: string): Promise<void> {
    const perSource = Math.max(VIEWER_LIMITS.channelMin, VIEWER_LIMITS.channelPerViewer * channel.maxViewers);
    const mine = await this.limiter.hit(`bcv:channel-src:${channel.id}:${source}`, perSource, VIEWER_LIMITS.windowMs);
    if (!mine.allowed) refuse(mine, 'source_channel_rate');
    const ceiling = perSource * this.limits.channelRateSources;
    const all = await this.limiter.hit(`bcv:channel:${channel.id}`, ceiling, VIEWER_LIMITS.windowMs);
    if (!all.allowed) refuse(all, 'channel_rate');
  }

  /** Before a password is compared: either lock refuses. */
  async assertPasswordsAllowed(channelId: string, source: string): Promise<void> {
    const w = VIEWER_LIMITS.passwordWindowMs;
    const bySource = await this.limiter.peek(`bcv:wrong-src:${source}`, VIEWER_LIMITS.wrongPerSource, w);
    if (!bySource.allowed) refuse(bySource, 'wrong_passwords_source');
    const byChannel = await this.limiter.peek(`bcv:wrong-chan:${channelId}`, this.limits.wrongPerChannel, w);
    if (!byChannel.allowed) refuse(byChannel, 'wrong_passwords_channel');
  }

  async countWrongPassword(channelId: string, source: string): Promise<void> {
    const w = VIEWER_LIMITS.passwordWindowMs;
    await this.limiter.hit(`bcv:wrong-src:${source}`, VIEWER_LIMITS.wrongPerSource, w);
    await this.limiter.hit(`bcv:wrong-chan:${channelId}`, this.limits.wrongPerChannel, w);
  }
}
