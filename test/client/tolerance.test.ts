/**
 * What the real server cannot be made to send: events and values a later server might add.
 * The client passes unknown SSE events and unknown WebSocket actions through (never throws),
 * and reads SSE bodies split anywhere, with CRLF line ends, comments and multi-line data.
 * (A scripted body and a scripted socket stand in for a future server here.)
 */
import { describe, expect, it } from 'vitest';
import { LiveSession, readSseFrames, SseStream, type WebSocketLike } from '../../src/client/index.js';

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
}

type Events = { progress: { progress: number }; completed: { task_id: string } };

describe('client tolerance', () => {
  it('SSE frames split mid-line, CRLF, comments, multi-line data, ids', async () => {
    const frames = [];
    for await (const f of readSseFrames(
      body([': heartbeat\r\n\r\nev', 'ent: a\r\nid: 7\r\ndata: {"x":', '1}\r\n\r\nevent: b\ndata: line1\ndata: line2\n\n']),
    ))
      frames.push(f);
    expect(frames).toEqual([
      { event: 'a', data: '{"x":1}', id: '7' },
      { event: 'b', data: 'line1\nline2', id: '7' },
    ]);
  });

  it('an unknown SSE event is passed through with its data; known ones stay typed', async () => {
    const res = new Response(
      body([
        'event: progress\ndata: {"progress":50}\n\n',
        'event: brand_new\ndata: {"z":true}\n\n',
        'event: completed\ndata: {"task_id":"t1"}\n\n',
      ]),
    );
    const stream = new SseStream<Events>(res, new AbortController());
    const seen: string[] = [];
    let unknown: unknown = null;
    const done = await stream.until('completed', (e) => {
      seen.push(e.event);
      if (e.event === 'progress') expect(e.data.progress).toBe(50);
      else if (e.event !== 'completed') unknown = e.data;
    });
    expect(done.task_id).toBe('t1');
    expect(seen).toEqual(['progress', 'brand_new', 'completed']);
    expect(unknown).toEqual({ z: true });
  });

  it('an unknown WebSocket action reaches onAny and events(); errors reach onError as ParleyError', async () => {
    const listeners: Record<string, ((e: unknown) => void)[]> = {};
    const ws: WebSocketLike = {
      readyState: 1,
      bufferedAmount: 0,
      binaryType: 'arraybuffer',
      send: () => {},
      close: () => {
        for (const l of listeners.close ?? []) l({ code: 1000, reason: '' });
      },
      addEventListener: (type, l) => {
        listeners[type] = [...(listeners[type] ?? []), l];
      },
    };
    const session = new LiveSession(ws);
    const actions: string[] = [];
    session.onAny((e) => actions.push(e.action));
    const errors: string[] = [];
    session.onError((e) => errors.push(`${e.code}/${e.sid}`));
    const emit = (m: unknown) => {
      for (const l of listeners.message ?? []) l({ data: JSON.stringify(m) });
    };
    emit({ type: 'voice-translation', data: { action: 'hologram_ready', depth: 3 } });
    emit({ type: 'voice-translation', data: { action: 'status', status: 'a_new_status' } });
    emit({
      type: 'error',
      data: { error_code: 'a_new_code', severity: 'error', message: 'm', context: 'c', sid: 4, timestamp: 'x', details: null },
    });
    emit({ type: 'something_else', data: {} });
    expect(actions).toEqual(['hologram_ready', 'status']);
    expect(errors).toEqual(['a_new_code/4']);
    session.close();
    expect(await session.closed).toEqual({ code: 1000, reason: '' });
  });
});
