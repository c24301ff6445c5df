/**
 * The fan-out's heartbeat (src/broadcasts/fanout/hub.ts): every open viewer stream gets its
 * heartbeat comment and its seat renewed, the seats of a room renewed in batches (one presence
 * call per 250 viewers, not one per viewer: on Redis each call is a round trip), so seats
 * outlive their first lease for as long as their streams are open, and a closed stream's seat
 * is not renewed. Real in-memory seats and bus; the streams are stand-ins that count comments.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ViewerFanout } from '../../src/broadcasts/fanout/hub.js';
import { RoomViewer } from '../../src/broadcasts/fanout/viewer.js';
import { presenceSeats, type ViewerSeats } from '../../src/broadcasts/seats.js';
import { InProcessBus } from '../../src/bus/in-process.js';
import type { SseStream } from '../../src/platform/http/sse.js';
import { InMemoryPresence } from '../../src/presence/in-memory.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE_MS = 400;
const HEARTBEAT_MS = 100;

describe('broadcast fan-out heartbeat', () => {
  const left: (() => void)[] = [];
  afterEach(() => {
    for (const leave of left.splice(0)) leave();
  });

  it('renews every open viewer seat in batches of 250 per room; a closed stream is neither beaten nor renewed', async () => {
    const seats = presenceSeats(new InMemoryPresence());
    const calls: number[] = [];
    const counting: ViewerSeats = {
      ...seats,
      renewMany: (id, viewers, leaseMs) => {
        calls.push(viewers.length);
        return seats.renewMany(id, viewers, leaseMs);
      },
    };
    const f = new ViewerFanout({
      bus: new InProcessBus(),
      seats: counting,
      heartbeatMs: HEARTBEAT_MS,
      leaseMs: LEASE_MS,
      read: async () => null,
      admits: async () => true,
    });
    const broadcast = { id: 'b1', token: 'TOKN', maxViewers: 5000 };
    const comments: Record<string, number> = {};
    const streams: { closed: boolean }[] = [];
    const N = 1_200;
    for (let i = 0; i < N; i++) {
      const id = `v${i}`;
      expect(await seats.claim(broadcast.id, id, 5000, LEASE_MS, { keys: [`src:${i % 7}`], limit: 5000 })).toMatchObject({
        admitted: true,
      });
      const v = new RoomViewer(id, null, false, 'en', [`src:${i % 7}`], undefined, true);
      const stream = {
        closed: false,
        comment: () => {
          comments[id] = (comments[id] ?? 0) + 1;
        },
      };
      streams.push(stream);
      v.sse = stream as unknown as SseStream;
      const room = await f.join(broadcast, v);
      left.push(() => f.leave(room, v));
    }
    // Counted from here: a heartbeat while they joined saw fewer viewers.
    calls.length = 0;
    // The last viewer's stream closes: it keeps its room place here but gets no heartbeat and no renewal.
    (streams[N - 1] as { closed: boolean }).closed = true;
    // Past two leases: the open ones are still seated (renewed each heartbeat), the closed one lapsed.
    await sleep(2 * LEASE_MS + 100);
    expect(await seats.counts(broadcast.id)).toEqual({ viewers: N - 1, queued: 0 });
    // Batches: 250, 250, 250, 250, 199 per heartbeat (never one call per viewer).
    expect(calls.length).toBeGreaterThanOrEqual(5 * 5);
    expect(calls.length % 5).toBe(0);
    expect(calls.slice(0, 5)).toEqual([250, 250, 250, 250, 199]);
    expect(comments.v0).toBeGreaterThanOrEqual(5);
    expect(comments[`v${N - 1}`]).toBeUndefined();
  });
});
