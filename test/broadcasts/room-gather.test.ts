/**
 * A large room fed over a remote bus gathers its caption frames for a few milliseconds
 * (src/broadcasts/fanout/room.ts): a caption's origin and translation arriving in two ticks (as
 * over Redis, a round trip apart) reach each viewer in one write; with the in-process bus (gather 0) and in small
 * rooms every tick's frames are written at the end of that tick. The streams are stand-ins
 * that record what each write carried.
 */
import { describe, expect, it } from 'vitest';
import { ViewerRoom } from '../../src/broadcasts/fanout/room.js';
import { RoomViewer } from '../../src/broadcasts/fanout/viewer.js';
import type { SseStream } from '../../src/platform/http/sse.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A room of `n` seated viewers (no language chosen); answers each viewer's writes as text. */
function roomOf(n: number, gatherMs: number): { room: ViewerRoom; writes: string[][] } {
  const room = new ViewerRoom('b1', 100_000, () => {}, gatherMs);
  const writes: string[][] = [];
  for (let i = 0; i < n; i++) {
    const mine: string[] = [];
    writes.push(mine);
    const v = new RoomViewer(`v${i}`, null, false, 'en', [], undefined, true);
    room.add(v);
    const stream = { closed: false, sendEncoded: (bytes: Uint8Array) => mine.push(Buffer.from(bytes).toString()) > 0 };
    room.open(v, stream as unknown as SseStream, []);
  }
  return { room, writes };
}

const origin = { event: 'origin', data: { sid: 1, text: 'Hello.', speaker_label: null, start_time: '00:01', is_final: true } };
const translation = {
  event: 'translation',
  data: { sid: 1, language: 'es', text: 'Hola.', speaker_id: null, speaker_label: null, is_final: true },
};

/** Publishes the origin, then its translation in a later tick (as over Redis), and waits for the writes. */
async function sendPair(room: ViewerRoom): Promise<void> {
  room.onEvent(origin as never);
  await new Promise((r) => setImmediate(r));
  room.onEvent(translation as never);
  await sleep(100);
}

describe('broadcast room write gathering', () => {
  it('a room of 500+ viewers on a remote bus writes a caption and its translation arriving in two ticks in one write per viewer', async () => {
    const { room, writes } = roomOf(600, 50);
    await sendPair(room);
    for (const w of writes) {
      expect(w).toHaveLength(1);
      expect(w[0]).toMatch(/^event: origin\n.*\n\nevent: translation\n.*"Hola\."/s);
    }
  });

  it('with the in-process bus (no gathering), or in a small room, each tick is written at its end', async () => {
    for (const { room, writes } of [roomOf(600, 0), roomOf(10, 50)]) {
      await sendPair(room);
      for (const w of writes) expect(w.map((x) => x.split('\n')[0])).toEqual(['event: origin', 'event: translation']);
    }
  });
});
