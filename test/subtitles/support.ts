/**
 * Floating-subtitle test helpers: a real SSE client over fetch (events collected in order,
 * waiters by predicate, the end of the stream observed), and access shortcuts over HTTP.
 */
import type { SessionPublisher } from '../../src/stream/session-streams.js';
import { TaskStore } from '../../src/tasks/store.js';
import { api, type TestApp } from '../support/app.js';
import { parseSseBlock } from '../support/sse.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
export type SseEvent = { event: string; data: any; id?: string /** performance.now() when parsed */; at?: number };

export interface SubtitleClient {
  status: number;
  /** The JSON body of a refused connection. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies freely
  body: any;
  headers: Headers;
  events: SseEvent[];
  /** The next event (after those already taken by next) matching `pred`. */
  next(pred?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSubtitles(
  base: string,
  taskId: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<SubtitleClient> {
  const abort = new AbortController();
  const res = await fetch(`${base}/tasks/${taskId}/subtitle?feed_token=${encodeURIComponent(token)}`, { signal: abort.signal, headers });
  const events: SseEvent[] = [];
  const waiters: { pred: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
  let taken = 0;
  const take = (pred: (e: SseEvent) => boolean): SseEvent | undefined => {
    while (taken < events.length) {
      const e = events[taken++]!;
      if (pred(e)) return e;
    }
    return undefined;
  };
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await res.text();
    return {
      status: res.status,
      body: text ? JSON.parse(text) : null,
      headers: res.headers,
      events,
      next: () => Promise.reject(new Error(`not a stream: ${res.status} ${text}`)),
      ended: Promise.resolve(),
      close: () => {},
    };
  }
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
          const parsed = parseSseBlock(block);
          if (!parsed) continue;
          const id = block
            .split('\n')
            .find((l) => l.startsWith('id: '))
            ?.slice(4);
          const e: SseEvent = { ...parsed, ...(id === undefined ? {} : { id }), at: performance.now() };
          events.push(e);
          const w = waiters[0];
          const found = w ? take(w.pred) : undefined;
          if (w && found) {
            waiters.shift();
            w.resolve(found);
          }
        }
      }
    } catch {
      /* aborted by the client */
    }
  })();
  return {
    status: res.status,
    body: null,
    headers: res.headers,
    events,
    ended,
    close: () => abort.abort(),
    next(pred = () => true, timeoutMs = 5000) {
      const found = take(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = {
          pred,
          resolve: (e: SseEvent) => {
            clearTimeout(timer);
            resolve(e);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching event; got ${JSON.stringify(events.map((e) => e.event))}`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
  };
}

export async function ownerToken(base: string, key: string, taskId: string) {
  return api(base, 'POST', `/api/v1/auth/tasks/${taskId}/subtitle-feed-token`, { key });
}

export async function enableShare(base: string, key: string, taskId: string) {
  return api(base, 'POST', `/api/v1/auth/tasks/${taskId}/subtitle-share`, { key });
}

export async function exchange(base: string, taskId: string, body: unknown) {
  return api(base, 'POST', `/api/v1/public/tasks/${taskId}/subtitle-feed-token`, { body });
}

export interface LiveRecordingOptions {
  title?: string;
  /** Its translation targets; the publisher carries one translation stream per target. */
  translationLanguages?: string[];
  /** How long to let the `started` status reach the bus before a viewer opens. */
  settleMs?: number;
}

/**
 * A live recording of `owner` whose session stream has published `started` (so its subtitle
 * stream opens), with the publisher to send its captions on.
 */
export async function publishedLiveRecording(
  t: TestApp,
  owner: { accountId: string; keyId: string },
  { title = 'Live', translationLanguages = [], settleMs = 50 }: LiveRecordingOptions = {},
): Promise<{ taskId: string; publisher: SessionPublisher }> {
  const task = await new TaskStore(t.app.deps.database).createTask({
    accountId: owner.accountId,
    keyId: owner.keyId,
    title,
    nameSource: 'user',
    type: 'transcribe',
    typeSource: 'realtime',
    recognitionMode: 'single',
    processingStatus: 'recording',
    transcriptionLanguages: ['en'],
    translationLanguages,
  });
  const publisher = await t.app.deps.streams.publisher(task.taskId, translationLanguages.length);
  publisher.publish({ event: 'status', data: { status: 'started' } });
  await new Promise((r) => setTimeout(r, settleMs));
  return { taskId: task.taskId, publisher };
}

/** A live recording of `owner` whose session stream has published (so its subtitle stream opens). */
export async function liveRecording(t: TestApp, owner: { accountId: string; keyId: string }): Promise<string> {
  return (await publishedLiveRecording(t, owner)).taskId;
}
