/**
 * Viewer seats of broadcasts, counted across every process of a deployment: at most
 * `max_viewers` viewers hold a seat; the others wait in a first-come queue and are admitted
 * in order as seats free. Seats and queue places are leases: the viewer's stream renews
 * its lease with each heartbeat, so a process that dies releases its viewers' seats when
 * their leases lapse. In-process for one process; Redis (one Lua script per operation, so
 * check-and-take is atomic) when the deployment has it.
 */
import { Redis } from 'ioredis';

export type SeatAnswer = { admitted: true; viewers: number } | { admitted: false; position: number; viewers: number };

export interface SeatCounts {
  viewers: number;
  queued: number;
}

export interface ViewerSeats {
  /**
   * Takes a seat when one is free and nobody queued before this viewer, else queues it (or
   * keeps its place). Also renews the lease of a viewer that already holds a seat.
   */
  claim(broadcastId: string, viewerId: string, max: number, leaseMs: number): Promise<SeatAnswer>;
  /** Renews a seat or queue place; false when the viewer holds neither any more. */
  renew(broadcastId: string, viewerId: string, leaseMs: number): Promise<boolean>;
  leave(broadcastId: string, viewerId: string): Promise<void>;
  counts(broadcastId: string): Promise<SeatCounts>;
  close(): Promise<void>;
}

interface Lease {
  until: number;
}

interface Room {
  seats: Map<string, Lease>;
  /** Insertion order is queue order. */
  queue: Map<string, Lease>;
}

export class InMemorySeats implements ViewerSeats {
  private readonly rooms = new Map<string, Room>();

  constructor(private readonly now: () => number = Date.now) {}

  private room(id: string): Room {
    let r = this.rooms.get(id);
    if (!r) {
      r = { seats: new Map(), queue: new Map() };
      this.rooms.set(id, r);
    }
    const t = this.now();
    for (const m of [r.seats, r.queue]) for (const [k, l] of m) if (l.until <= t) m.delete(k);
    return r;
  }

  async claim(broadcastId: string, viewerId: string, max: number, leaseMs: number): Promise<SeatAnswer> {
    const r = this.room(broadcastId);
    const until = this.now() + leaseMs;
    if (r.seats.has(viewerId)) {
      r.seats.set(viewerId, { until });
      return { admitted: true, viewers: r.seats.size };
    }
    const queued = [...r.queue.keys()];
    const ahead = queued.includes(viewerId) ? queued.indexOf(viewerId) : queued.length;
    if (r.seats.size + ahead < max) {
      r.queue.delete(viewerId);
      r.seats.set(viewerId, { until });
      return { admitted: true, viewers: r.seats.size };
    }
    r.queue.set(viewerId, { until }); // a Map keeps a renewed key's place
    return { admitted: false, position: ahead + 1, viewers: r.seats.size };
  }

  async renew(broadcastId: string, viewerId: string, leaseMs: number): Promise<boolean> {
    const r = this.room(broadcastId);
    const until = this.now() + leaseMs;
    for (const m of [r.seats, r.queue]) {
      if (m.has(viewerId)) {
        m.set(viewerId, { until });
        return true;
      }
    }
    return false;
  }

  async leave(broadcastId: string, viewerId: string): Promise<void> {
    const r = this.room(broadcastId);
    r.seats.delete(viewerId);
    r.queue.delete(viewerId);
    if (!r.seats.size && !r.queue.size) this.rooms.delete(broadcastId);
  }

  async counts(broadcastId: string): Promise<SeatCounts> {
    const r = this.room(broadcastId);
    return { viewers: r.seats.size, queued: r.queue.size };
  }

  async close(): Promise<void> {}
}

// KEYS: seats zset, queue zset (score = lease end), order zset (score = first arrival)
// ARGV: now, viewer, max, leaseEnd, arrival
const CLAIM = `
local now = tonumber(ARGV[1])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, v in ipairs(expired) do redis.call('ZREM', KEYS[3], v) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local viewer = ARGV[2]
local max = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
if redis.call('ZSCORE', KEYS[1], viewer) then
  redis.call('ZADD', KEYS[1], lease, viewer)
  return {1, redis.call('ZCARD', KEYS[1]), 0}
end
local seated = redis.call('ZCARD', KEYS[1])
local rank = redis.call('ZRANK', KEYS[3], viewer)
local ahead = rank or redis.call('ZCARD', KEYS[3])
if seated + ahead < max then
  redis.call('ZREM', KEYS[2], viewer)
  redis.call('ZREM', KEYS[3], viewer)
  redis.call('ZADD', KEYS[1], lease, viewer)
  return {1, seated + 1, 0}
end
redis.call('ZADD', KEYS[2], lease, viewer)
if not rank then redis.call('ZADD', KEYS[3], tonumber(ARGV[5]), viewer) end
return {0, seated, ahead + 1}
`;

// KEYS: seats, queue; ARGV: viewer, leaseEnd, now (a lapsed lease is not renewed)
const RENEW = `
for i = 1, 2 do
  local until_ = redis.call('ZSCORE', KEYS[i], ARGV[1])
  if until_ and tonumber(until_) > tonumber(ARGV[3]) then
    redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1])
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

  private async touch(keys: string[]): Promise<void> {
    const m = this.redis.multi();
    for (const k of keys) m.pexpire(k, KEY_TTL_MS);
    await m.exec();
  }

  async claim(broadcastId: string, viewerId: string, max: number, leaseMs: number): Promise<SeatAnswer> {
    const keys = this.keys(broadcastId);
    const now = this.now();
    // Arrival order: the clock, with a per-process counter to split equal milliseconds.
    const arrival = now + (this.arrivals++ % 1000) / 1000;
    const [admitted, viewers, position] = (await this.redis.eval(CLAIM, 3, ...keys, now, viewerId, max, now + leaseMs, arrival)) as [
      number,
      number,
      number,
    ];
    await this.touch(keys);
    return admitted === 1 ? { admitted: true, viewers } : { admitted: false, position, viewers };
  }

  async renew(broadcastId: string, viewerId: string, leaseMs: number): Promise<boolean> {
    const [seats, queue] = this.keys(broadcastId);
    const now = this.now();
    return (await this.redis.eval(RENEW, 2, seats, queue, viewerId, now + leaseMs, now)) === 1;
  }

  async leave(broadcastId: string, viewerId: string): Promise<void> {
    const [seats, queue, order] = this.keys(broadcastId);
    await this.redis.multi().zrem(seats, viewerId).zrem(queue, viewerId).zrem(order, viewerId).exec();
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
