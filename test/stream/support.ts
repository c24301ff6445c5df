/**
 * Stream test helpers: a raw session-stream SSE route over the app's own SessionStreams and
 * SSE helper (what the subtitle and broadcast routes build on), a reading SSE client, a
 * client that never reads, and a session's worth of events.
 */
import { connect as tcpConnect } from 'node:net';
import type { ParleyApp } from '../../src/app.js';
import { type SseStream, streamToSse } from '../../src/platform/http/sse.js';
import { isEnd, isInterim, type SessionEvent, type SessionEventBody } from '../../src/stream/events.js';
import type { SessionPublisher } from '../../src/stream/session-streams.js';
import { parseSseBlock } from '../support/sse.js';
import { until } from '../support/until.js';

export const STREAM_PATH = '/test/sessions';

/** GET /test/sessions/:taskId/events: every event of the session, `id` = seq. Opened streams land in `opened`. */
export function rawStreamRoute(opened: SseStream[]) {
  return (app: ParleyApp) => {
    app.http.get<{ Params: { taskId: string } }>(`${STREAM_PATH}/:taskId/events`, async (request, reply) => {
      await streamToSse<SessionEvent>(
        request,
        reply,
        {
          subscribe: async (push) => {
            const sub = await app.deps.streams.subscribe(request.params.taskId, push);
            return () => sub.close();
          },
          frame: (e) => ({ event: e.event, data: { seq: e.seq, ...e.data }, id: e.seq, interim: isInterim(e), end: isEnd(e) }),
        },
        { onOpen: (sse) => opened.push(sse) },
      );
    });
  };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
export type Got = { event: string; data: any };

/** An SSE client that reads everything as it comes. */
export function readingClient(url: string) {
  const events: Got[] = [];
  let ended = false;
  const done = (async () => {
    const res = await fetch(url);
    if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body) {
      buf += decoder.decode(chunk as Uint8Array, { stream: true });
      let i = buf.indexOf('\n\n');
      while (i >= 0) {
        const e = parseSseBlock(buf.slice(0, i));
        buf = buf.slice(i + 2);
        if (e) events.push(e);
        i = buf.indexOf('\n\n');
      }
    }
    ended = true;
  })();
  return {
    events,
    done,
    get ended() {
      return ended;
    },
  };
}

/** An SSE client that sends its request and then reads nothing until `drain()`. */
export function stalledClient(port: number, path: string) {
  const socket = tcpConnect({ port, host: '127.0.0.1' });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  socket.pause();
  return {
    /** Reads what the server had sent until it closed the connection; the SSE events in it. */
    async drain(): Promise<{ events: Got[]; bytes: number }> {
      const chunks: Buffer[] = [];
      await new Promise<void>((resolve) => {
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
        socket.resume();
      });
      const raw = Buffer.concat(chunks);
      const body = dechunk(raw.subarray(raw.indexOf('\r\n\r\n') + 4)).toString('utf8');
      const events: Got[] = [];
      for (const block of body.split('\n\n')) {
        try {
          const e = parseSseBlock(block);
          if (e) events.push(e);
        } catch {
          // the frame cut off by the close
        }
      }
      return { events, bytes: raw.length };
    },
    destroy: () => socket.destroy(),
  };
}

/** The body of a chunked HTTP/1.1 response (possibly cut off in the middle). */
function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < buf.length) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = Number.parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(buf.subarray(eol + 2, Math.min(eol + 2 + size, buf.length)));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Sentence `sid`'s events: three interims, the final, its translation. `size` is the final's length. */
export function sentence(sid: number, size: number): SessionEventBody[] {
  const origin = (text: string, isFinal: boolean) => ({
    origin: {
      sid,
      language: 'en',
      text,
      is_final: isFinal,
      speaker_id: null,
      detected_language: null,
      start_time: '00:00',
      end_ms: sid * 1000,
    },
  });
  const words = `sentence ${sid} `.repeat(Math.ceil(size / 12)).slice(0, size);
  return [
    { event: 'result', data: origin(words.slice(0, size / 4), false) },
    { event: 'result', data: origin(words.slice(0, size / 3), false) },
    { event: 'result', data: origin(words.slice(0, size / 2), false) },
    { event: 'result', data: origin(words, true) },
    {
      event: 'translation',
      data: { sid, language: 'es', text: `frase ${sid} `.repeat(Math.ceil(size / 9)).slice(0, size), is_final: true },
    },
  ];
}

/** The finals and translations of a list of events, as [event, sid]. */
export function kept(events: Got[]): [string, number][] {
  return events
    .filter((e) => e.event === 'translation' || (e.event === 'result' && e.data.origin.is_final))
    .map((e) => [e.event, e.event === 'result' ? e.data.origin.sid : e.data.sid]);
}

/** Publishes `sentences` sentences, each batch only once `reader` has its last event (so a reading client is never behind). */
export async function publishPaced(pub: SessionPublisher, sentences: number, size: number, seen: () => number): Promise<number> {
  let count = 0;
  for (let sid = 0; sid < sentences; sid++) {
    for (const body of sentence(sid, size)) {
      pub.publish(body);
      count++;
    }
    if (sid % 10 === 9) {
      const last = pub.lastSeq;
      await until(() => seen() >= last, 30_000, `seq ${last} at the reading subscriber`, 2);
    }
  }
  return count;
}
