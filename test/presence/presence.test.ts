/**
 * One behaviour suite for both presence backends (src/presence: in memory, and Redis with two
 * connections standing for two processes): claims up to a capacity with or without a waiting
 * line (positions, order of admission, `full` taking nothing), share keys counted over places
 * held and waiting and checked for newcomers only, leases that lapse unless renewed (and are
 * never revived), release with the counts left, groups kept apart, and claims that stay atomic
 * when many arrive at once from both handles.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClaimTerms, Presence } from '../../src/presence/types.js';
import { presencePairFactories } from '../support/presences.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE = 60_000;
let groups = 0;
/** A fresh group per test (the Redis prefix is per handle pair; in memory the object is too). */
const newGroup = () => `g${++groups}:${Date.now()}`;
const line = (capacity: number, share?: ClaimTerms['share']): ClaimTerms => ({ leaseMs: LEASE, capacity, waitingLine: true, share });
const noLine = (capacity: number, share?: ClaimTerms['share']): ClaimTerms => ({ leaseMs: LEASE, capacity, waitingLine: false, share });

describe.each(presencePairFactories())('presence: $name', ({ make }) => {
  const open: Presence[] = [];
  afterEach(async () => {
    for (const p of new Set(open.splice(0))) await p.close();
  });
  const pair = () => {
    const handles = make();
    open.push(...handles);
    return handles;
  };

  it('holds up to capacity; a member asking again renews its place; release answers the counts left', async () => {
    const [a, b] = pair();
    const g = newGroup();
    expect(await a.count(g)).toEqual({ holders: 0, waiting: 0 });
    expect(await a.claim(g, 'm1', noLine(3))).toEqual({ outcome: 'held', holders: 1 });
    expect(await b.claim(g, 'm2', noLine(3))).toEqual({ outcome: 'held', holders: 2 });
    expect(await a.claim(g, 'm1', noLine(3))).toEqual({ outcome: 'held', holders: 2 });
    expect(await b.count(g)).toEqual({ holders: 2, waiting: 0 });
    expect(await b.release(g, 'm1')).toEqual({ holders: 1, waiting: 0 });
    expect(await a.release(g, 'm1')).toEqual({ holders: 1, waiting: 0 });
    expect(await a.release(g, 'm2')).toEqual({ holders: 0, waiting: 0 });
    expect(await b.count(g)).toEqual({ holders: 0, waiting: 0 });
  });

  it('without a waiting line a newcomer past capacity is refused and takes nothing; a freed place is taken', async () => {
    const [a, b] = pair();
    const g = newGroup();
    const mine = { keys: ['src:x'], limit: 5 };
    await a.claim(g, 'm1', noLine(2, mine));
    await b.claim(g, 'm2', noLine(2));
    expect(await b.claim(g, 'm3', noLine(2, mine))).toEqual({ outcome: 'full', holders: 2 });
    expect(await a.count(g)).toEqual({ holders: 2, waiting: 0 });
    // The refused member holds nothing to renew.
    expect(await a.renew(g, 'm3', LEASE, mine.keys)).toBe(false);
    await a.release(g, 'm2');
    expect(await b.claim(g, 'm3', noLine(2, mine))).toEqual({ outcome: 'held', holders: 2 });
    // A holder asking again is never refused, even once the capacity is lower than the holders.
    expect(await a.claim(g, 'm1', noLine(1))).toEqual({ outcome: 'held', holders: 2 });
  });

  it('with a waiting line: positions in arrival order, places taken in line order as they free, a raised capacity admits at once', async () => {
    const [a, b] = pair();
    const g = newGroup();
    expect(await a.claim(g, 'm1', line(1))).toEqual({ outcome: 'held', holders: 1 });
    expect(await b.claim(g, 'm2', line(1))).toEqual({ outcome: 'waiting', position: 1, holders: 1 });
    expect(await a.claim(g, 'm3', line(1))).toEqual({ outcome: 'waiting', position: 2, holders: 1 });
    expect(await b.claim(g, 'm4', line(1))).toEqual({ outcome: 'waiting', position: 3, holders: 1 });
    expect(await a.count(g)).toEqual({ holders: 1, waiting: 3 });
    // Asking again keeps the place in line.
    expect(await a.claim(g, 'm3', line(1))).toEqual({ outcome: 'waiting', position: 2, holders: 1 });
    expect(await b.release(g, 'm1')).toEqual({ holders: 0, waiting: 3 });
    // m3 is second: it waits while m2, first, has not taken the free place.
    expect(await a.claim(g, 'm3', line(1))).toEqual({ outcome: 'waiting', position: 2, holders: 0 });
    expect(await b.claim(g, 'm2', line(1))).toEqual({ outcome: 'held', holders: 1 });
    expect(await a.claim(g, 'm3', line(1))).toEqual({ outcome: 'waiting', position: 1, holders: 1 });
    // Capacity 3: m3 and m4 are admitted when they ask, in order.
    expect(await a.claim(g, 'm3', line(3))).toEqual({ outcome: 'held', holders: 2 });
    expect(await b.claim(g, 'm4', line(3))).toEqual({ outcome: 'held', holders: 3 });
    expect(await a.count(g)).toEqual({ holders: 3, waiting: 0 });
    // A member leaving the line frees its place in it.
    await a.claim(g, 'm5', line(3));
    await b.claim(g, 'm6', line(3));
    expect(await a.release(g, 'm5')).toEqual({ holders: 3, waiting: 1 });
    expect(await b.claim(g, 'm6', line(3))).toEqual({ outcome: 'waiting', position: 1, holders: 3 });
  });

  it('a share key holds at most its limit of places held and waiting; checked for newcomers only; released with its member', async () => {
    const [a, b] = pair();
    const g = newGroup();
    const x = { keys: ['src:x'], limit: 2 };
    expect(await a.claim(g, 'x1', line(1, x))).toEqual({ outcome: 'held', holders: 1 });
    expect(await b.claim(g, 'x2', line(1, x))).toEqual({ outcome: 'waiting', position: 1, holders: 1 });
    expect(await a.claim(g, 'x3', line(1, x))).toEqual({ outcome: 'over_share', key: 'src:x', holders: 1 });
    // Any of a newcomer's keys at its limit refuses it; the answer names that key. Others still come in.
    const t = { keys: ['src:y', 'tok:t'], limit: 1 };
    expect(await b.claim(g, 'y1', line(1, t))).toEqual({ outcome: 'waiting', position: 2, holders: 1 });
    expect(await a.claim(g, 'z1', line(1, { keys: ['src:z', 'tok:t'], limit: 1 }))).toEqual({
      outcome: 'over_share',
      key: 'tok:t',
      holders: 1,
    });
    expect(await b.claim(g, 'w1', line(1, { keys: ['src:w'], limit: 1 }))).toMatchObject({ outcome: 'waiting', position: 3 });
    // A member already waiting asking again is not checked; renewing with its keys keeps the share.
    expect(await b.claim(g, 'x2', line(1, x))).toEqual({ outcome: 'waiting', position: 1, holders: 1 });
    expect(await a.renew(g, 'x2', LEASE, x.keys)).toBe(true);
    await b.release(g, 'x1', x.keys);
    expect(await a.claim(g, 'x2', line(1, x))).toEqual({ outcome: 'held', holders: 1 });
    // x1 gone: src:x holds one again, so one more may come.
    expect(await b.claim(g, 'x4', line(1, x))).toMatchObject({ outcome: 'waiting' });
    expect(await a.claim(g, 'x5', line(1, x))).toMatchObject({ outcome: 'over_share', key: 'src:x' });
    // Without a line the share counts places held (the subtitle audience).
    const h = newGroup();
    expect(await a.claim(h, 'p1', noLine(10, x))).toEqual({ outcome: 'held', holders: 1 });
    expect(await b.claim(h, 'p2', noLine(10, x))).toEqual({ outcome: 'held', holders: 2 });
    expect(await a.claim(h, 'p3', noLine(10, x))).toEqual({ outcome: 'over_share', key: 'src:x', holders: 2 });
    expect(await b.release(h, 'p1', x.keys)).toEqual({ holders: 1, waiting: 0 });
    expect(await a.claim(h, 'p3', noLine(10, x))).toEqual({ outcome: 'held', holders: 2 });
  });

  it('a lease not renewed lapses with its share (a dead process frees its places); renew keeps one; a lapsed one is not revived', async () => {
    const [a, b] = pair();
    const g = newGroup();
    const x = { keys: ['src:x'], limit: 1 };
    const short = (capacity: number, share?: ClaimTerms['share']): ClaimTerms => ({ leaseMs: 150, capacity, waitingLine: true, share });
    await a.claim(g, 'gone', short(1, x));
    await a.claim(g, 'kept', short(2));
    expect(await b.claim(g, 'next', line(2))).toMatchObject({ outcome: 'waiting', position: 1 });
    expect(await b.claim(g, 'x2', line(5, x))).toMatchObject({ outcome: 'over_share', key: 'src:x' });
    await sleep(80);
    expect(await b.renew(g, 'kept', 400)).toBe(true);
    await sleep(120);
    expect(await a.count(g)).toEqual({ holders: 1, waiting: 1 });
    expect(await b.renew(g, 'gone', 400)).toBe(false);
    expect(await a.count(g)).toEqual({ holders: 1, waiting: 1 });
    expect(await b.claim(g, 'next', line(2))).toEqual({ outcome: 'held', holders: 2 });
    // src:x's share lapsed with "gone".
    expect(await a.claim(g, 'x2', line(5, x))).toEqual({ outcome: 'held', holders: 3 });
    // A waiting member's lease lapses too, and the line closes up behind it.
    const w = newGroup();
    await a.claim(w, 'holder', line(1));
    await b.claim(w, 'first', short(1));
    expect(await a.claim(w, 'second', line(1))).toMatchObject({ outcome: 'waiting', position: 2 });
    await sleep(200);
    expect(await b.claim(w, 'second', line(1))).toEqual({ outcome: 'waiting', position: 1, holders: 1 });
    expect(await a.count(w)).toEqual({ holders: 1, waiting: 1 });
  });

  it('renewMany renews many members in one step: held, waiting and their shares; lapsed and unknown ones answer false', async () => {
    const [a, b] = pair();
    const g = newGroup();
    const short = (capacity: number, share?: ClaimTerms['share']): ClaimTerms => ({ leaseMs: 150, capacity, waitingLine: true, share });
    const x = { keys: ['src:x'], limit: 1 };
    const y = { keys: ['src:y', 'tok:t'], limit: 1 };
    await a.claim(g, 'held-x', short(2, x));
    await a.claim(g, 'held-y', short(2, y));
    await a.claim(g, 'waiting', short(2));
    await a.claim(g, 'lapsing', short(3));
    // Three of the four renewed together (two with share keys), one not, one never there.
    await sleep(80);
    const answers = await b.renewMany(
      g,
      [{ member: 'held-x', shareKeys: x.keys }, { member: 'nobody' }, { member: 'held-y', shareKeys: y.keys }, { member: 'waiting' }],
      400,
    );
    expect(answers).toEqual([true, false, true, true]);
    await sleep(120);
    // Past the first lease: the renewed ones stay (the waiting one still waits), the other lapsed.
    expect(await a.count(g)).toEqual({ holders: 2, waiting: 1 });
    expect(await b.renewMany(g, [{ member: 'lapsing' }, { member: 'held-x', shareKeys: x.keys }], 400)).toEqual([false, true]);
    // The share keys were renewed with their members: each source is still at its share.
    expect(await a.claim(g, 'x2', line(5, x))).toMatchObject({ outcome: 'over_share', key: 'src:x' });
    expect(await a.claim(g, 't2', line(5, { keys: ['src:z', 'tok:t'], limit: 1 }))).toMatchObject({ outcome: 'over_share', key: 'tok:t' });
    expect(await b.renewMany(g, [], 400)).toEqual([]);
    // A batch as large as a heartbeat's (500 members) in one call.
    const many = Array.from({ length: 500 }, (_, i) => `m${i}`);
    const big = newGroup();
    for (const m of many) await a.claim(big, m, noLine(1000, { keys: [`src:${m}`], limit: 1 }));
    const renewed = await b.renewMany(
      big,
      many.map((m) => ({ member: m, shareKeys: [`src:${m}`] })),
      LEASE,
    );
    expect(renewed.filter(Boolean)).toHaveLength(500);
  });

  it('groups are apart: the same member in two groups, each counted alone', async () => {
    const [a, b] = pair();
    const [g, h] = [newGroup(), newGroup()];
    const x = { keys: ['src:x'], limit: 1 };
    expect(await a.claim(g, 'm', noLine(1, x))).toEqual({ outcome: 'held', holders: 1 });
    expect(await b.claim(h, 'm', noLine(1, x))).toEqual({ outcome: 'held', holders: 1 });
    expect(await a.release(g, 'm', x.keys)).toEqual({ holders: 0, waiting: 0 });
    expect(await b.count(h)).toEqual({ holders: 1, waiting: 0 });
  });

  it('claims arriving together from both handles stay atomic: never more holders than capacity, never more than a share', async () => {
    const [a, b] = pair();
    const g = newGroup();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).claim(g, `m${i}`, noLine(10))));
    expect(answers.filter((x) => x.outcome === 'held')).toHaveLength(10);
    expect(answers.filter((x) => x.outcome === 'full')).toHaveLength(30);
    expect(await a.count(g)).toEqual({ holders: 10, waiting: 0 });

    const q = newGroup();
    const queued = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).claim(q, `m${i}`, line(10))));
    expect(queued.filter((x) => x.outcome === 'held')).toHaveLength(10);
    const positions = queued.flatMap((x) => (x.outcome === 'waiting' ? [x.position] : [])).sort((p, r) => p - r);
    expect(positions).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(await b.count(q)).toEqual({ holders: 10, waiting: 30 });

    const s = newGroup();
    const one = { keys: ['src:one'], limit: 3 };
    const shared = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim(s, `m${i}`, line(100, one))));
    expect(shared.filter((x) => x.outcome === 'held')).toHaveLength(3);
    expect(shared.filter((x) => x.outcome === 'over_share')).toHaveLength(17);
  });
});
