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
import type { ClaimAnswer, ClaimTerms, Presence, PresenceCounts, Renewal } from './types.js';

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

// KEYS: held, line, order, then the share sets of the members renewed. ARGV: now, leaseMs, then
// per member: its id, its number of share keys k, and k indices of those keys in KEYS.
// Answers 1 (renewed) or 0 per member, in order. A lapsed lease is not renewed (its place may
// be someone else's by now). Each key's expiry is kept once for the batch.
const RENEW = `${KEEP}
local now = tonumber(ARGV[1])
local leaseMs = tonumber(ARGV[2])
local lease = now + leaseMs
local answers = {}
local written = {}
local i = 3
while i <= #ARGV do
  local member = ARGV[i]
  local k = tonumber(ARGV[i + 1])
  local renewed = 0
  for s = 1, 2 do
    local until_ = redis.call('ZSCORE', KEYS[s], member)
    if until_ and tonumber(until_) > now then
      redis.call('ZADD', KEYS[s], lease, member)
      written[s] = true
      if s == 2 then written[3] = true end
      for j = 1, k do
        local key = tonumber(ARGV[i + 1 + j])
        redis.call('ZADD', KEYS[key], lease, member)
        written[key] = true
      end
      renewed = 1
      break
    end
  end
  answers[#answers + 1] = renewed
  i = i + 2 + k
end
for key in pairs(written) do keep(KEYS[key], leaseMs) end
return answers
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
    return [`${p}held`, `${p}line`, `${p}order`, ...shareKeys.map((k) => this.shareKey(group, k))];
  }

  private shareKey(group: string, key: string): string {
    return `${this.prefix}{${group}}:share:${key}`;
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
    return (await this.renewMany(group, [{ member, shareKeys }], leaseMs))[0] === true;
  }

  async renewMany(group: string, members: readonly Renewal[], leaseMs: number): Promise<boolean[]> {
    if (members.length === 0) return [];
    // Each share key once in KEYS, named by its index in the members' arguments.
    const keys = this.keys(group);
    const index = new Map<string, number>();
    const args: (string | number)[] = [this.now(), leaseMs];
    for (const { member, shareKeys = [] } of members) {
      args.push(member, shareKeys.length);
      for (const k of shareKeys) {
        let at = index.get(k);
        if (at === undefined) {
          keys.push(this.shareKey(group, k));
          at = keys.length; // Lua's KEYS count from 1
          index.set(k, at);
        }
        args.push(at);
      }
    }
    const answers = (await this.redis.eval(RENEW, keys.length, ...keys, ...args)) as number[];
    return answers.map((a) => a === 1);
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
