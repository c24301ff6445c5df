/**
 * The slow-consumer policy of one subscriber's outbox, against a transport the test opens
 * and closes by hand (the real transports are exercised in slow-consumer.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { Outbox, type OutboxStats, type Transport } from '../../src/stream/outbox.js';

/** A transport that accepts `room` frames, then pushes back until the test drains it. */
function manualTransport(room: number) {
  const written: string[] = [];
  let free = room;
  let waiter: (() => void) | null = null;
  const t: Transport = {
    write(frame) {
      written.push(frame);
      free--;
      return free > 0;
    },
    onDrain(cb) {
      waiter = cb;
    },
  };
  return {
    t,
    written,
    drain(n: number) {
      free = n;
      const w = waiter;
      waiter = null;
      w?.();
    },
  };
}

describe('subscriber outbox', () => {
  it('writes straight through while the transport takes frames', () => {
    const m = manualTransport(100);
    const out = new Outbox(m.t, { maxFrames: 5, maxBytes: 1000 }, () => {});
    for (let i = 0; i < 50; i++) out.offer(`f${i}`, i % 2 === 0);
    expect(m.written).toHaveLength(50);
    expect(out.stats).toMatchObject({ written: 50, dropped: 0, queued: 0, maxQueued: 0, closed: null });
  });

  it('while pushed back: finals wait in order, a newer interim replaces the one waiting; all flows on drain', () => {
    const m = manualTransport(1);
    const out = new Outbox(m.t, { maxFrames: 100, maxBytes: 10_000 }, () => {});
    out.offer('F0');
    expect(out.congested).toBe(true);
    out.offer('i1a', true);
    out.offer('i1b', true);
    out.offer('F1');
    out.offer('i2a', true);
    out.offer('i2b', true);
    out.offer('i2c', true);
    out.offer('F2');
    // i1b waited before F1: the next interim supersedes it too (its sentence's final is waiting).
    expect(out.stats).toMatchObject({ queued: 3, dropped: 4 });
    m.drain(1000);
    expect(m.written).toEqual(['F0', 'F1', 'i2c', 'F2']);
    expect(out.stats).toMatchObject({ written: 4, dropped: 4, queued: 0, queuedBytes: 0, closed: null });
    expect(out.congested).toBe(false);
  });

  it('interims alone never grow the queue past one', () => {
    const m = manualTransport(1);
    const out = new Outbox(m.t, { maxFrames: 3, maxBytes: 10_000 }, () => {});
    out.offer('F0');
    for (let i = 0; i < 10_000; i++) out.offer(`i${i}`, true);
    expect(out.stats).toMatchObject({ queued: 1, maxQueued: 1, dropped: 9_999, closed: null });
    m.drain(10);
    expect(m.written).toEqual(['F0', 'i9999']);
  });

  it('past maxFrames waiting finals the subscriber is cut off: queue emptied, overflow reported once, nothing more written', () => {
    const m = manualTransport(1);
    const overflows: OutboxStats[] = [];
    const out = new Outbox(m.t, { maxFrames: 10, maxBytes: 1 << 20 }, (s) => overflows.push({ ...s }));
    out.offer('F0');
    for (let i = 1; i <= 10; i++) expect(out.offer(`F${i}`)).toBe(true);
    expect(out.offer('F11')).toBe(false);
    expect(out.offer('F12')).toBe(false);
    expect(overflows).toEqual([expect.objectContaining({ closed: 'overflow', queued: 0, queuedBytes: 0, maxQueued: 11 })]);
    m.drain(100);
    expect(m.written).toEqual(['F0']);
  });

  it('past maxBytes waiting the subscriber is cut off', () => {
    const m = manualTransport(1);
    let cut = false;
    const out = new Outbox(m.t, { maxFrames: 1000, maxBytes: 100 }, () => {
      cut = true;
    });
    out.offer('x');
    out.offer('a'.repeat(60));
    expect(cut).toBe(false);
    out.offer('b'.repeat(60));
    expect(cut).toBe(true);
    expect(out.stats.closed).toBe('overflow');
  });
});
