/**
 * Server-sent events over a hijacked Fastify reply. Headers set before (CORS, request id)
 * are copied, since hijacking bypasses Fastify's own header writing. Errors found before the
 * stream opens are ordinary JSON error responses; after that they are `error` events.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface SseStream {
  send(event: string, data: unknown, id?: string | number): boolean;
  comment(text: string): void;
  close(): void;
  readonly closed: boolean;
  /** Resolves when the client goes away or close() is called. */
  readonly done: Promise<void>;
}

/** Open streams per server, so a graceful close can end them (they would hold close() forever). */
const openStreams = new WeakMap<object, Set<SseStream>>();

export function closeAllSse(server: object): void {
  for (const s of openStreams.get(server) ?? []) s.close();
}

export function openSse(request: FastifyRequest, reply: FastifyReply, options: { heartbeatMs?: number; status?: number } = {}): SseStream {
  reply.hijack();
  const res = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v as string | number | string[];
  res.writeHead(options.status ?? 200, {
    ...headers,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'X-Request-Id': request.id,
  });
  res.flushHeaders?.();
  let closed = false;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => {
    resolveDone = r;
  });
  const heartbeat = options.heartbeatMs ? setInterval(() => stream.comment('heartbeat'), options.heartbeatMs) : undefined;
  heartbeat?.unref();
  const finish = () => {
    if (closed) return;
    closed = true;
    if (heartbeat) clearInterval(heartbeat);
    resolveDone();
  };
  request.raw.on('close', finish);
  res.on('close', finish);
  const registry = openStreams.get(request.server) ?? new Set<SseStream>();
  openStreams.set(request.server, registry);
  void done.then(() => registry.delete(stream));

  const stream: SseStream = {
    send(event, data, id) {
      if (closed) return false;
      let frame = '';
      if (id !== undefined) frame += `id: ${id}\n`;
      frame += `event: ${event}\n`;
      for (const line of JSON.stringify(data).split('\n')) frame += `data: ${line}\n`;
      return res.write(`${frame}\n`);
    },
    comment(text) {
      if (!closed) res.write(`: ${text.replace(/\n/g, ' ')}\n\n`);
    },
    close() {
      if (closed) return;
      res.end();
      finish();
    },
    get closed() {
      return closed;
    },
    done,
  };
  registry.add(stream);
  return stream;
}
