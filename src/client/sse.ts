/**
 * Server-sent events read from a fetch response body, so they work in browsers and Node alike
 * and can carry the X-API-Key header (EventSource cannot send headers). The stream is an async
 * iterable of typed events; events the client does not know (added by a later server) are
 * passed through with a name typed apart from the known ones, never thrown.
 */
import { ParleyError } from './errors.js';

/**
 * The name of an event this client version does not know. At run time it is the server's
 * name as sent; the type is a pattern no known name matches, so `e.event === 'progress'`
 * narrows to exactly the known event (compare unknown names as `(e.event as string)`).
 */
export type UnknownEventName = `${string} (unknown event)`;

/**
 * One event of a stream whose known events are `E` (name -> payload). Narrow with
 * `if (e.event === 'progress') e.data...` or a switch; unknown events fall to `default`.
 */
export type SseEvent<E> =
  | { [N in keyof E & string]: { event: N; data: E[N]; id?: string } }[keyof E & string]
  | { event: UnknownEventName; data: unknown; id?: string };

/** Raw frames of a text/event-stream body: one per blank-line-terminated block with data or a name. */
export async function* readSseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string; id?: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // Lines end with \n, \r\n or \r; a trailing partial line waits for more bytes.
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = done ? '' : (lines.pop() ?? '');
      for (const line of lines) {
        if (line === '') {
          if (data.length || event) yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue; // comment (heartbeat)
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id') id = value;
      }
      if (done) break;
    }
  } finally {
    reader.releaseLock();
  }
}

/** An open SSE stream: iterate it (`for await`), or use the helpers. `close()` ends it early. */
export class SseStream<E> implements AsyncIterable<SseEvent<E>> {
  private iterated = false;
  constructor(
    private readonly response: Response,
    private readonly abort: AbortController,
  ) {}

  /** The HTTP response (status, headers such as X-Request-Id). */
  get raw(): Response {
    return this.response;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SseEvent<E>> {
    if (this.iterated) throw new Error('an SSE stream can be iterated once');
    this.iterated = true;
    if (!this.response.body) return;
    try {
      for await (const f of readSseFrames(this.response.body)) {
        let data: unknown = f.data;
        try {
          data = f.data === '' ? null : JSON.parse(f.data);
        } catch {
          /* not JSON: passed through as text */
        }
        yield { event: f.event, data, ...(f.id !== undefined ? { id: f.id } : {}) } as SseEvent<E>;
      }
    } catch (err) {
      if (this.abort.signal.aborted) return; // closed by us
      throw err;
    } finally {
      this.close();
    }
  }

  /** Every event until the server ends the stream (or `stopAt` names the event that ends it for you). */
  async collect(stopAt?: keyof E & string): Promise<SseEvent<E>[]> {
    const out: SseEvent<E>[] = [];
    for await (const e of this) {
      out.push(e);
      if (stopAt && e.event === stopAt) break;
    }
    return out;
  }

  /**
   * Reads until the event named `name` and returns its payload; an `error` event before it
   * throws it as a ParleyError (status 0); a stream that ends without it throws `stream_ended`.
   */
  async until<N extends keyof E & string>(name: N, onEvent?: (e: SseEvent<E>) => void): Promise<E[N]> {
    for await (const e of this) {
      onEvent?.(e);
      if (e.event === name) return e.data as E[N];
      if (e.event === 'error') throw errorFromEvent(e.data);
    }
    throw new ParleyError({ code: 'stream_ended', message: `the stream ended before a "${name}" event` });
  }

  close(): void {
    if (!this.abort.signal.aborted) this.abort.abort();
  }
}

/** An SSE `error` event as a ParleyError (a parameter failure may carry only `message`). */
export function errorFromEvent(data: unknown): ParleyError {
  const d = (data ?? {}) as Record<string, unknown>;
  if (typeof d.error_code === 'string') return ParleyError.fromObject(d);
  return new ParleyError({ code: 'stream_error', message: String(d.message ?? 'error event'), body: data });
}
