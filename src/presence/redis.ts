/**
 * Presence in Redis, for a deployment of several processes: every process counts the same
 * groups. A group is a few sorted sets under one hash tag (one cluster slot): who holds a
 * place and who waits (score: lease end), the line's arrival order (score: first arrival),
 * and one set per share key (score: lease end). A claim is one Lua script, so sweeping lapsed
 * leases, the capacity and share checks and the take are one atomic step across processes.
 * Every write pushes the written keys' expiry to at least the lease it wrote, so a group
 * nobody renews any more disappears by itself once its last lease has lapsed.
 */
import { Redis } from 'ioredis';
import type { ClaimAnswer, ClaimTerms, Presence, PresenceCounts } from './types.js';

// Keeps a key until at least `ms` from now (never shortens a longer expiry another lease set).
const KEEP = `
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
`;

// KEYS: held, line, order, then the newcomer's share sets. ARGV: now, member, capacity,
// leaseMs, arrival, share limit, waiting line (1/0).
// Answers {1, holders, 0} held, {0, holders, position} waiting, {2, holders, share key index}
// over its share, {3, holders, 0} full.
const CLAIM = `${KEEP}
local now = tonumber(ARGV[1])
local member = ARGV[2]
local capacity = tonumber(ARGV[3])
local leaseMs = tonumber(ARGV[4])
local lease = now + leaseMs
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, v in ipairs(expired) do redis.call('ZREM', KEYS[3], v) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local function write(key, score)
  redis.call('ZADD', key, score, member)
  keep(key, leaseMs)
end
local function share()
  for i = 4, #KEYS do write(KEYS[i], lease) end
end
if redis.call('ZSCORE', KEYS[1], member) then
  write(KEYS[1], lease)
  share()
  return {1, redis.call('ZCARD', KEYS[1]), 0}
end
local holders = redis.call('ZCARD', KEYS[1])
local rank = redis.call('ZRANK', KEYS[3], member)
if not rank then
  if ARGV[7] ~= '1' and holders + redis.call('ZCARD', KEYS[3]) >= capacity then return {3, holders, 0} end
  local limit = tonumber(ARGV[6])
  for i = 4, #KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
    if redis.call('ZCARD', KEYS[i]) >= limit then return {2, holders, i - 3} end
  end
end
local ahead = rank or redis.call('ZCARD', KEYS[3])
if holders + ahead < capacity then
  redis.call('ZREM', KEYS[2], member)
  redis.call('ZREM', KEYS[3], member)
  write(KEYS[1], lease)
  share()
  return {1, holders + 1, 0}
end
write(KEYS[2], lease)
if not rank then write(KEYS[3], tonumber(ARGV[5])) else keep(KEYS[3], leaseMs) end
share()
return {0, holders, ahead + 1}
`;

// KEYS: held, line, order, then the member's share sets. ARGV: member, now, leaseMs.
// A lapsed lease is not renewed (its place may be someone else's by now).
const RENEW = `${KEEP}
local now = tonumber(ARGV[2])
local leaseMs = tonumber(ARGV[3])
for i = 1, 2 do
  local until_ = redis.call('ZSCORE', KEYS[i], ARGV[1])
  if until_ and tonumber(until_) > now then
    redis.call('ZADD', KEYS[i], now + leaseMs, ARGV[1])
    keep(KEYS[i], leaseMs)
    if i == 2 then keep(KEYS[3], leaseMs) end
    for j = 4, #KEYS do
      redis.call('ZADD', KEYS[j], now + leaseMs, ARGV[1])
      keep(KEYS[j], leaseMs)
    end
    return 1
  end
end
return 0
`;

export class RedisPresence implements Presence {
  private readonly redis: Redis;
  private arrivals = 0;

  constructor(
    url: string,
    private readonly prefix = 'parley:presence:',
    private readonly now: () => number = Date.now,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 });
  }

  /** held, line, order, then the share sets: one hash tag, the group's. */
  private keys(group: string, shareKeys: readonly string[] = []): string[] {
    const p = `${this.prefix}{${group}}:`;
    return [`${p}held`, `${p}line`, `${p}order`, ...shareKeys.map((k) => `${p}share:${k}`)];
  }

  async claim(group: string, member: string, terms: ClaimTerms): Promise<ClaimAnswer> {
    const keys = this.keys(group, terms.share?.keys);
    const now = this.now();
    // Line order: the clock, with a per-process counter to split equal milliseconds.
    const arrival = now + (this.arrivals++ % 1000) / 1000;
    const args = [now, member, terms.capacity, terms.leaseMs, arrival, terms.share?.limit ?? 0, terms.waitingLine ? 1 : 0];
    const [answer, holders, n] = (await this.redis.eval(CLAIM, keys.length, ...keys, ...args)) as [number, number, number];
    if (answer === 1) return { outcome: 'held', holders };
    if (answer === 0) return { outcome: 'waiting', position: n, holders };
    if (answer === 2) return { outcome: 'over_share', key: terms.share?.keys[n - 1] ?? '', holders };
    return { outcome: 'full', holders };
  }

  async renew(group: string, member: string, leaseMs: number, shareKeys?: readonly string[]): Promise<boolean> {
    const keys = this.keys(group, shareKeys);
    return (await this.redis.eval(RENEW, keys.length, ...keys, member, this.now(), leaseMs)) === 1;
  }

  async release(group: string, member: string, shareKeys?: readonly string[]): Promise<PresenceCounts> {
    const [held, line, ...rest] = this.keys(group, shareKeys);
    const m = this.redis.multi();
    for (const k of [held!, line!, ...rest]) m.zrem(k, member);
    const now = this.now();
    m.zcount(held!, `(${now}`, '+inf').zcount(line!, `(${now}`, '+inf');
    const r = (await m.exec()) ?? [];
    return { holders: Number(r.at(-2)?.[1] ?? 0), waiting: Number(r.at(-1)?.[1] ?? 0) };
  }

  async count(group: string): Promise<PresenceCounts> {
    const [held, line] = this.keys(group);
    const now = this.now();
    const r = await this.redis.multi().zcount(held!, `(${now}`, '+inf').zcount(line!, `(${now}`, '+inf').exec();
    return { holders: Number(r?.[0]?.[1] ?? 0), waiting: Number(r?.[1]?.[1] ?? 0) };
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
