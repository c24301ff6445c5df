/**
 * Transports with backpressure for outboxes: a WebSocket (its `bufferedAmount`) and an HTTP
 * response (SSE: `write()` returning false, then 'drain'). Writing to a transport that has
 * closed is a no-op that reports room, so an outbox in front of it empties instead of waiting.
 */
import type { ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { Frame, Transport } from './outbox.js';

/** Bytes a WebSocket may hold unsent before its outbox starts queueing. */
export const WS_HIGH_WATER_BYTES = 64 * 1024;

export function webSocketTransport(ws: WebSocket, highWater = WS_HIGH_WATER_BYTES): Transport {
  let waiting: (() => void)[] = [];
  // Each send's callback runs once its bytes left; the first one that finds room wakes the waiters.
  const sent = () => {
    if (!waiting.length || (ws.readyState === ws.OPEN && ws.bufferedAmount >= highWater)) return;
    const wake = waiting;
    waiting = [];
    for (const cb of wake) cb();
  };
  ws.once('close', sent);
  return {
    write(frame) {
      if (ws.readyState !== ws.OPEN) return true;
      ws.send(frame, sent);
      return ws.bufferedAmount < highWater;
    },
    onDrain(cb) {
      waiting.push(cb);
      if (ws.readyState !== ws.OPEN) sent();
    },
  };
}

/** An SSE response as a transport (a class: one per open stream, its methods shared). */
export class ResponseTransport implements Transport<Frame> {
  constructor(private readonly res: ServerResponse) {}

  write(frame: Frame): boolean {
    const res = this.res;
    if (res.writableEnded || res.destroyed) return true;
    return res.write(frame);
  }

  onDrain(cb: () => void): void {
    const res = this.res;
    if (res.writableEnded || res.destroyed) {
      // Writes are no-ops now, so the waiter can go on (next turn: never a microtask spin).
      setImmediate(cb);
      return;
    }
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      cb();
    };
    res.on('drain', done);
    res.on('close', done);
  }
}
