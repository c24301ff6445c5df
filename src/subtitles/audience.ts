/**
 * The audience of each recording's subtitle stream, counted where every realtime process
 * sees it: in-process for a single process, in Redis (one sorted set per recording) when
 * several processes serve viewers. A seat is a lease: its process renews it while the viewer
 * is connected, so the seats of a process that died lapse by themselves.
 */
import { Redis } from 'ioredis';

export type SeatOutcome = { ok: true; count: number } | { ok: false; count: number };

export interface AudienceCounter {
  /** Takes a seat for `viewerId` when fewer than `max` are taken (atomic across processes). */
  join(taskId: string, viewerId: string, max: number): Promise<SeatOutcome>;
  /** Renews the seat's lease (call at least every leaseMs / 2). */
  renew(taskId: string, viewerId: string): Promise<void>;
  /** Frees the seat; resolves with the audience left. */
  leave(taskId: string, viewerId: string): Promise<number>;
  count(taskId: string): Promise<number>;
  close?(): Promise<void>;
}

export const SEAT_LEASE_MS = 30_000;

export class InMemoryAudience implements AudienceCounter {
  private readonly seats = new Map<string, Set<string>>();

  async join(taskId: string, viewerId: string, max: number): Promise<SeatOutcome> {
    const set = this.seats.get(taskId) ?? new Set<string>();
    if (set.size >= max) return { ok: false, count: set.size };
    set.add(viewerId);
    this.seats.set(taskId, set);
    return { ok: true, count: set.size };
  }

  async renew(): Promise<void> {}

  async leave(taskId: string, viewerId: string): Promise<number> {
    const set = this.seats.get(taskId);
    set?.delete(viewerId);
    if (set && set.size === 0) this.seats.delete(taskId);
    return set?.size ?? 0;
  }

  async count(taskId: string): Promise<number> {
    return this.seats.get(taskId)?.size ?? 0;
  }
}

// KEYS[1] = audience set; ARGV = now, lease, max, viewer. Lapsed seats go first, then the check and the seat together.
const JOIN = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[3]) then return {0, count} end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, count + 1}
`;

export class RedisAudience implements AudienceCounter {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'parley:audience:',
    private readonly leaseMs = SEAT_LEASE_MS,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 });
  }

  async join(taskId: string, viewerId: string, max: number): Promise<SeatOutcome> {
    const [ok, count] = (await this.redis.eval(JOIN, 1, this.prefix + taskId, Date.now(), this.leaseMs, max, viewerId)) as [number, number];
    return { ok: ok === 1, count };
  }

  async renew(taskId: string, viewerId: string): Promise<void> {
    const key = this.prefix + taskId;
    await this.redis
      .multi()
      .zadd(key, 'XX', Date.now() + this.leaseMs, viewerId)
      .pexpire(key, this.leaseMs)
      .exec();
  }

  async leave(taskId: string, viewerId: string): Promise<number> {
    await this.redis.zrem(this.prefix + taskId, viewerId);
    return this.count(taskId);
  }

  async count(taskId: string): Promise<number> {
    return this.redis.zcount(this.prefix + taskId, Date.now(), '+inf');
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
