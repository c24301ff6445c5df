/**
 * The audience of each recording's subtitle stream, counted where every realtime process
 * sees it: in-process for a single process, in Redis (one sorted set per recording) when
 * several processes serve viewers. A seat is a lease: its process renews it while the viewer
 * is connected, so the seats of a process that died lapse by themselves.
 *
 * A share per source (issue 26): a newcomer names its share keys (its source address, its
 * feed token) and the most any one key may hold (the rule is src/platform/http/source-share.ts,
 * the broadcast viewers' too); when one of its keys already holds that many seats it gets
 * none, so one client cannot take a recording's whole audience.
 */
import { Redis } from 'ioredis';
import type { SourceShare } from '../platform/http/source-share.js';

export type SeatOutcome =
  | { ok: true; count: number }
  /** `full`: the recording's audience is; `share`: one of the newcomer's share keys holds its limit. */
  | { ok: false; count: number; reason: 'full' | 'share' };

export interface AudienceCounter {
  /**
   * Takes a seat for `viewerId` when fewer than `max` are taken and none of `share`'s keys
   * holds `share.limit` seats already (atomic across processes).
   */
  join(taskId: string, viewerId: string, max: number, share?: SourceShare): Promise<SeatOutcome>;
  /** Renews the seat's lease (call at least every leaseMs / 2); pass the share keys it joined with. */
  renew(taskId: string, viewerId: string, shareKeys?: string[]): Promise<void>;
  /** Frees the seat; resolves with the audience left. */
  leave(taskId: string, viewerId: string, shareKeys?: string[]): Promise<number>;
  count(taskId: string): Promise<number>;
  close?(): Promise<void>;
}

export const SEAT_LEASE_MS = 30_000;

export class InMemoryAudience implements AudienceCounter {
  /** Per recording: each seated viewer and the share keys it joined with. */
  private readonly seats = new Map<string, Map<string, string[]>>();

  async join(taskId: string, viewerId: string, max: number, share?: SourceShare): Promise<SeatOutcome> {
    const room = this.seats.get(taskId) ?? new Map<string, string[]>();
    if (room.size >= max) return { ok: false, count: room.size, reason: 'full' };
    const held = (key: string) => [...room.values()].filter((keys) => keys.includes(key)).length;
    if (share?.keys.some((k) => held(k) >= share.limit)) return { ok: false, count: room.size, reason: 'share' };
    room.set(viewerId, share?.keys ?? []);
    this.seats.set(taskId, room);
    return { ok: true, count: room.size };
  }

  async renew(): Promise<void> {}

  async leave(taskId: string, viewerId: string): Promise<number> {
    const room = this.seats.get(taskId);
    room?.delete(viewerId);
    if (room && room.size === 0) this.seats.delete(taskId);
    return room?.size ?? 0;
  }

  async count(taskId: string): Promise<number> {
    return this.seats.get(taskId)?.size ?? 0;
  }
}

// KEYS[1] = audience set, then the newcomer's share sets (score = lease end); ARGV = now, lease,
// max, viewer, share limit. Lapsed seats go first, then the checks and the seat together.
// Answers {1, count} seated, {0, count} full, {2, count} over its share.
const JOIN = `
local now = tonumber(ARGV[1])
for i = 1, #KEYS do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now) end
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[3]) then return {0, count} end
for i = 2, #KEYS do
  if redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[5]) then return {2, count} end
end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now + tonumber(ARGV[2]), ARGV[4])
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
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

  /** The recording's audience set, then its share sets (one hash slot: the recording's). */
  private keys(taskId: string, shareKeys: string[] = []): string[] {
    const room = `${this.prefix}{${taskId}}`;
    return [room, ...shareKeys.map((k) => `${room}:share:${k}`)];
  }

  async join(taskId: string, viewerId: string, max: number, share?: SourceShare): Promise<SeatOutcome> {
    const keys = this.keys(taskId, share?.keys);
    const args = [Date.now(), this.leaseMs, max, viewerId, share?.limit ?? 0];
    const [answer, count] = (await this.redis.eval(JOIN, keys.length, ...keys, ...args)) as [number, number];
    if (answer === 1) return { ok: true, count };
    return { ok: false, count, reason: answer === 2 ? 'share' : 'full' };
  }

  async renew(taskId: string, viewerId: string, shareKeys?: string[]): Promise<void> {
    const m = this.redis.multi();
    for (const key of this.keys(taskId, shareKeys)) m.zadd(key, 'XX', Date.now() + this.leaseMs, viewerId).pexpire(key, this.leaseMs);
    await m.exec();
  }

  async leave(taskId: string, viewerId: string, shareKeys?: string[]): Promise<number> {
    const m = this.redis.multi();
    for (const key of this.keys(taskId, shareKeys)) m.zrem(key, viewerId);
    await m.exec();
    return this.count(taskId);
  }

  async count(taskId: string): Promise<number> {
    return this.redis.zcount(this.keys(taskId)[0]!, Date.now(), '+inf');
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
