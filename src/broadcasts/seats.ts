/**
 * Viewer seats of broadcasts, counted across every process of a deployment: at most
 * `max_viewers` viewers hold a seat; the others wait in a first-come queue and are admitted
 * in order as seats free. Seats and queue places are leases: the viewer's stream renews
 * its lease with each heartbeat, so a process that dies releases its viewers' seats when
 * their leases lapse. In-process for one process; Redis (one Lua script per operation, so
 * check-and-take is atomic) when the deployment has it.
 *
 * A share per source: a newcomer names its share keys (its source address, its viewer access
 * token) and the most any one key may hold, seats and queue places together; when one of its
 * keys already holds that many it gets neither (`overShare`). The check is only for newcomers:
 * a queued viewer taking a seat keeps its count, so nobody waits behind a source at its share.
 */
import { Redis } from 'ioredis';
import type { SourceShare } from '../platform/http/source-share.js';

export type SeatAnswer =
  | { admitted: true; viewers: number }
  | { admitted: false; position: number; viewers: number }
  /** One of the newcomer's share keys already holds its limit. */
  | { admitted: false; overShare: string; viewers: number };

/** What one source (address, viewer token) may hold of a room: `limit` seats and queue places together. */
export type SeatShare = SourceShare;

export interface SeatCounts {
  viewers: number;
  queued: number;
}

export interface ViewerSeats {
  /**
   * Takes a seat when one is free and nobody queued before this viewer, else queues it (or
   * keeps its place). Also renews the lease of a viewer that already holds a seat. A newcomer
   * with a `share` is refused when one of its keys holds `share.limit` already.
   */
  claim(broadcastId: string, viewerId: string, max: number, leaseMs: number, share?: SeatShare): Promise<SeatAnswer>;
  /** Renews a seat or queue place; false when the viewer holds neither any more. Pass the share keys it claimed with. */
  renew(broadcastId: string, viewerId: string, leaseMs: number, shareKeys?: string[]): Promise<boolean>;
  leave(broadcastId: string, viewerId: string, shareKeys?: string[]): Promise<void>;
  counts(broadcastId: string): Promise<SeatCounts>;
  close(): Promise<void>;
}

interface Lease {
  until: number;
  /** The share keys the viewer claimed with. */
  keys: string[];
}

interface Room {
  seats: Map<string, Lease>;
  /** Insertion order is queue order. */
  queue: Map<string, Lease>;
  /** Seats and queue places held per share key (kept as leases come and go: no scan per claim). */
  held: Map<string, number>;
  /** No lease ends before this: the room is swept only once one may have lapsed. */
  earliest: number;
}

export class InMemorySeats implements ViewerSeats {
  private readonly rooms = new Map<string, Room>();

  constructor(private readonly now: () => number = Date.now) {}

  private room(id: string): Room {
    let r = this.rooms.get(id);
    if (!r) {
      r = { seats: new Map(), queue: new Map(), held: new Map(), earliest: Number.POSITIVE_INFINITY };
      this.rooms.set(id, r);
    }
    const t = this.now();
    if (t >= r.earliest) this.sweep(r, t);
    return r;
  }

  /** Drops lapsed leases and finds the next lease end (renewals only move ends later). */
  private sweep(r: Room, t: number): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const m of [r.seats, r.queue]) {
      for (const [k, l] of m) {
        if (l.until <= t) {
          m.delete(k);
          this.release(r, l);
        } else if (l.until < earliest) earliest = l.until;
      }
    }
    r.earliest = earliest;
  }

  private hold(r: Room, l: Lease): void {
    for (const k of l.keys) r.held.set(k, (r.held.get(k) ?? 0) + 1);
    if (l.until < r.earliest) r.earliest = l.until;
  }

  private release(r: Room, l: Lease): void {
    for (const k of l.keys) {
      const n = (r.held.get(k) ?? 1) - 1;
      if (n > 0) r.held.set(k, n);
      else r.held.delete(k);
    }
  }

  async claim(broadcastId: string, viewerId: string, max: number, leaseMs: number, share?: SeatShare): Promise<SeatAnswer> {
    const r = this.room(broadcastId);
    const until = this.now() + leaseMs;
    const seated = r.seats.get(viewerId);
    if (seated) {
      seated.until = until;
      return { admitted: true, viewers: r.seats.size };
    }
    const known = r.queue.get(viewerId);
    if (!known && share) {
      const full = share.keys.find((k) => (r.held.get(k) ?? 0) >= share.limit);
      if (full) return { admitted: false, overShare: full, viewers: r.seats.size };
    }
    const ahead = known ? [...r.queue.keys()].indexOf(viewerId) : r.queue.size;
    const lease: Lease = known ?? { until, keys: share?.keys ?? [] };
    lease.until = until;
    if (!known) this.hold(r, lease);
    if (r.seats.size + ahead < max) {
      r.queue.delete(viewerId);
      r.seats.set(viewerId, lease);
      return { admitted: true, viewers: r.seats.size };
    }
    r.queue.set(viewerId, lease); // a Map keeps a renewed key's place
    return { admitted: false, position: ahead + 1, viewers: r.seats.size };
  }

  async renew(broadcastId: string, viewerId: string, leaseMs: number): Promise<boolean> {
    const r = this.room(broadcastId);
    const until = this.now() + leaseMs;
    for (const m of [r.seats, r.queue]) {
      const lease = m.get(viewerId);
      if (lease) {
        lease.until = until;
        return true;
      }
    }
    return false;
  }

  async leave(broadcastId: string, viewerId: string): Promise<void> {
    const r = this.room(broadcastId);
    for (const m of [r.seats, r.queue]) {
      const lease = m.get(viewerId);
      if (lease) {
        m.delete(viewerId);
        this.release(r, lease);
      }
    }
    if (!r.seats.size && !r.queue.size) this.rooms.delete(broadcastId);
  }

  async counts(broadcastId: string): Promise<SeatCounts> {
    const r = this.room(broadcastId);
    return { viewers: r.seats.size, queued: r.queue.size };
  }

  async close(): Promise<void> {}
}

// KEYS: seats zset, queue zset (score = lease end), order zset (score = first arrival), then
// the newcomer's share zsets (score = lease end). ARGV: now, viewer, max, leaseEnd, arrival, share limit.
// Answers {1, viewers, 0} seated, {0, viewers, position} queued, {2, viewers, share key index} over share.
const CLAIM = `
local now = tonumber(ARGV[1])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, v in ipairs(expired) do redis.call('ZREM', KEYS[3], v) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local viewer = ARGV[2]
local max = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local function hold()
  for i = 4, #KEYS do redis.call('ZADD', KEYS[i], lease, viewer) end
end
if redis.call('ZSCORE', KEYS[1], viewer) then
  redis.call('ZADD', KEYS[1], lease, viewer)
  hold()
  return {1, redis.call('ZCARD', KEYS[1]), 0}
end
local seated = redis.call('ZCARD', KEYS[1])
local rank = redis.call('ZRANK', KEYS[3], viewer)
if not rank then
  local limit = tonumber(ARGV[6])
  for i = 4, #KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
    if redis.call('ZCARD', KEYS[i]) >= limit then return {2, seated, i - 3} end
  end
end
local ahead = rank or redis.call('ZCARD', KEYS[3])
if seated + ahead < max then
  redis.call('ZREM', KEYS[2], viewer)
  redis.call('ZREM', KEYS[3], viewer)
  redis.call('ZADD', KEYS[1], lease, viewer)
  hold()
  return {1, seated + 1, 0}
end
redis.call('ZADD', KEYS[2], lease, viewer)
if not rank then redis.call('ZADD', KEYS[3], tonumber(ARGV[5]), viewer) end
hold()
return {0, seated, ahead + 1}
`;

// KEYS: seats, queue, then the viewer's share zsets; ARGV: viewer, leaseEnd, now (a lapsed lease is not renewed)
const RENEW = `
for i = 1, 2 do
  local until_ = redis.call('ZSCORE', KEYS[i], ARGV[1])
  if until_ and tonumber(until_) > tonumber(ARGV[3]) then
    redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1])
    for j = 3, #KEYS do redis.call('ZADD', KEYS[j], ARGV[2], ARGV[1]) end
    return 1
  end
end
return 0
`;

/** Idle rooms disappear: every key expires a while after its last write. */
const KEY_TTL_MS = 3_600_000;

export class RedisSeats implements ViewerSeats {
  private readonly redis: Redis;
  private arrivals = 0;

  constructor(
    url: string,
    private readonly prefix = 'parley:seats:',
    private readonly now: () => number = Date.now,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 });
  }

  private keys(id: string): [string, string, string] {
    const p = `${this.prefix}{${id}}:`;
    return [`${p}seats`, `${p}queue`, `${p}order`];
  }

  /** A share key's set of the room (same hash slot as the room's keys). */
  private shareKeys(id: string, keys: string[] = []): string[] {
    return keys.map((k) => `${this.prefix}{${id}}:share:${k}`);
  }

  private async touch(keys: string[]): Promise<void> {
    const m = this.redis.multi();
    for (const k of keys) m.pexpire(k, KEY_TTL_MS);
    await m.exec();
  }

  async claim(broadcastId: string, viewerId: string, max: number, leaseMs: number, share?: SeatShare): Promise<SeatAnswer> {
    const keys = [...this.keys(broadcastId), ...this.shareKeys(broadcastId, share?.keys)];
    const now = this.now();
    // Arrival order: the clock, with a per-process counter to split equal milliseconds.
    const arrival = now + (this.arrivals++ % 1000) / 1000;
    const limit = share?.limit ?? 0;
    const [answer, viewers, n] = (await this.redis.eval(
      CLAIM,
      keys.length,
      ...keys,
      now,
      viewerId,
      max,
      now + leaseMs,
      arrival,
      limit,
    )) as [number, number, number];
    await this.touch(keys);
    if (answer === 1) return { admitted: true, viewers };
    if (answer === 2) return { admitted: false, overShare: share?.keys[n - 1] ?? '', viewers };
    return { admitted: false, position: n, viewers };
  }

  async renew(broadcastId: string, viewerId: string, leaseMs: number, shareKeys?: string[]): Promise<boolean> {
    const [seats, queue] = this.keys(broadcastId);
    const keys = [seats, queue, ...this.shareKeys(broadcastId, shareKeys)];
    const now = this.now();
    return (await this.redis.eval(RENEW, keys.length, ...keys, viewerId, now + leaseMs, now)) === 1;
  }

  async leave(broadcastId: string, viewerId: string, shareKeys?: string[]): Promise<void> {
    const [seats, queue, order] = this.keys(broadcastId);
    const m = this.redis.multi().zrem(seats, viewerId).zrem(queue, viewerId).zrem(order, viewerId);
    for (const k of this.shareKeys(broadcastId, shareKeys)) m.zrem(k, viewerId);
    await m.exec();
  }

  async counts(broadcastId: string): Promise<SeatCounts> {
    const [seats, queue] = this.keys(broadcastId);
    const now = this.now();
    const r = await this.redis.multi().zcount(seats, `(${now}`, '+inf').zcount(queue, `(${now}`, '+inf').exec();
    return { viewers: Number(r?.[0]?.[1] ?? 0), queued: Number(r?.[1]?.[1] ?? 0) };
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
