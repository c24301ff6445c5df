/**
 * Viewer seats: at most max viewers seated, the rest queued first come first served and
 * admitted in order as seats free; leases lapse when not renewed; a share key (a source's
 * address, a viewer token) holds at most its limit of seats and places. The same behaviour on
 * both presence backends: in process, and on Redis, where two instances (two connections, as two
 * processes) share one room.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { presenceSeats, type ViewerSeats } from '../../src/broadcasts/seats.js';
import { presencePairFactories } from '../support/presences.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// In memory (one object), and on Redis as two instances (two connections) sharing one room.
describe.each(presencePairFactories())('viewer seats ($name)', ({ make }) => {
  const presences = make();
  const all: ViewerSeats[] = presences.map((p) => presenceSeats(p));
  const at = (i: number) => all[i % all.length]!;
  afterAll(async () => {
    for (const p of new Set(presences)) await p.close();
  });
  const LEASE = 60_000;

  it('seats up to max, queues the rest in arrival order, admits the first in line when a seat frees', async () => {
    const room = randomUUID();
    expect(await at(0).claim(room, 'a', 2, LEASE)).toEqual({ admitted: true, viewers: 1 });
    expect(await at(1).claim(room, 'b', 2, LEASE)).toEqual({ admitted: true, viewers: 2 });
    expect(await at(0).claim(room, 'c', 2, LEASE)).toEqual({ admitted: false, position: 1, viewers: 2 });
    expect(await at(1).claim(room, 'd', 2, LEASE)).toEqual({ admitted: false, position: 2, viewers: 2 });
    expect(await at(0).counts(room)).toEqual({ viewers: 2, queued: 2 });
    // Asking again keeps the place; a seated viewer asking again renews its seat.
    expect(await at(1).claim(room, 'd', 2, LEASE)).toMatchObject({ admitted: false, position: 2 });
    expect(await at(1).claim(room, 'a', 2, LEASE)).toEqual({ admitted: true, viewers: 2 });
    await at(1).leave(room, 'a');
    // d is second in line: it waits while c, first, has not taken the seat.
    expect(await at(0).claim(room, 'd', 2, LEASE)).toMatchObject({ admitted: false, position: 2 });
    expect(await at(1).claim(room, 'c', 2, LEASE)).toEqual({ admitted: true, viewers: 2 });
    expect(await at(0).claim(room, 'd', 2, LEASE)).toMatchObject({ admitted: false, position: 1 });
    await at(0).leave(room, 'b');
    expect(await at(1).claim(room, 'd', 2, LEASE)).toEqual({ admitted: true, viewers: 2 });
    expect(await at(0).counts(room)).toEqual({ viewers: 2, queued: 0 });
  });

  it('a raised max admits queued viewers at once; a lowered one seats nobody new until enough leave', async () => {
    const room = randomUUID();
    for (const v of ['a', 'b']) await at(0).claim(room, v, 1, LEASE);
    expect(await at(1).claim(room, 'b', 3, LEASE)).toEqual({ admitted: true, viewers: 2 });
    expect(await at(0).claim(room, 'c', 1, LEASE)).toMatchObject({ admitted: false, position: 1 });
    await at(1).leave(room, 'a');
    expect(await at(0).claim(room, 'c', 1, LEASE)).toMatchObject({ admitted: false });
    await at(1).leave(room, 'b');
    expect(await at(0).claim(room, 'c', 1, LEASE)).toEqual({ admitted: true, viewers: 1 });
  });

  it('a lease that is not renewed lapses (a dead process frees its seats); renew keeps it', async () => {
    const room = randomUUID();
    await at(0).claim(room, 'gone', 1, 150);
    await at(0).claim(room, 'kept', 2, 150);
    expect(await at(1).claim(room, 'next', 2, LEASE)).toMatchObject({ admitted: false, position: 1 });
    await sleep(80);
    expect(await at(1).renewMany(room, [{ id: 'kept' }], 400)).toEqual([true]);
    await sleep(120);
    expect(await at(0).counts(room)).toEqual({ viewers: 1, queued: 1 });
    expect(await at(1).renewMany(room, [{ id: 'gone' }, { id: 'next' }], 400)).toEqual([false, true]);
    expect(await at(1).claim(room, 'next', 2, LEASE)).toEqual({ admitted: true, viewers: 2 });
  });

  it('a share key holds at most its limit of seats and queue places; others still come in; a leaving viewer frees its share', async () => {
    const room = randomUUID();
    const mine = { keys: ['src:a'], limit: 2 };
    expect(await at(0).claim(room, 'a1', 2, LEASE, mine)).toEqual({ admitted: true, viewers: 1 });
    expect(await at(1).claim(room, 'b1', 2, LEASE, { keys: ['src:b'], limit: 2 })).toEqual({ admitted: true, viewers: 2 });
    expect(await at(0).claim(room, 'a2', 2, LEASE, mine)).toEqual({ admitted: false, position: 1, viewers: 2 });
    // a1 seated and a2 queued: src:a is at its share, for seats and places alike.
    expect(await at(1).claim(room, 'a3', 2, LEASE, mine)).toEqual({ admitted: false, overShare: 'src:a', viewers: 2 });
    // Any of a newcomer's keys at its share refuses it (here its token, from another address).
    const token = { keys: ['src:c', 'tok:t'], limit: 1 };
    expect(await at(0).claim(room, 'c1', 2, LEASE, token)).toMatchObject({ admitted: false, position: 2 });
    expect(await at(1).claim(room, 'd1', 2, LEASE, { keys: ['src:d', 'tok:t'], limit: 1 })).toMatchObject({ overShare: 'tok:t' });
    // Asking again (queue poll, seat renewal) is never refused, and a2 takes the seat b1 frees.
    await at(0).leave(room, 'b1', ['src:b']);
    expect(await at(1).claim(room, 'a2', 2, LEASE, mine)).toEqual({ admitted: true, viewers: 2 });
    expect(await at(0).renewMany(room, [{ id: 'a2', shareKeys: mine.keys }], LEASE)).toEqual([true]);
    await at(1).leave(room, 'a1', mine.keys);
    // a1 gone, src:a holds one again: a4 may queue (behind c1, which has not asked again yet).
    expect(await at(0).claim(room, 'a4', 2, LEASE, mine)).toMatchObject({ admitted: false, position: 2 });
    expect(await at(0).counts(room)).toEqual({ viewers: 1, queued: 2 });
  });

  it("a share lapses with its leases (a dead process frees its viewers' share too)", async () => {
    const room = randomUUID();
    const mine = { keys: ['src:x'], limit: 1 };
    await at(0).claim(room, 'x1', 5, 150, mine);
    expect(await at(1).claim(room, 'x2', 5, LEASE, mine)).toMatchObject({ overShare: 'src:x' });
    await sleep(200);
    expect(await at(1).claim(room, 'x2', 5, LEASE, mine)).toEqual({ admitted: true, viewers: 1 });
  });
});
