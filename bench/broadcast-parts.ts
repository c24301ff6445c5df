/**
 * The child processes of bench:broadcast (bench/broadcast.ts): the servers (Parley's real app,
 * or the bare node:http broadcaster) and the viewer clients. Each runs in a process of its own,
 * so its memory is its own and no process holds more than its open-file limit of sockets.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';

export const now = () => performance.timeOrigin + performance.now();

export type ServerMsg =
  | { kind: 'ready'; url: string; dataDir?: string; token?: string }
  | { kind: 'memory'; rss: number; heap: number }
  | { kind: 'sent'; count: number };
export type ServerCmd = { kind: 'memory' } | { kind: 'run'; seconds: number } | { kind: 'stop' };
export type ClientMsg =
  | { kind: 'connected'; seconds: number }
  | { kind: 'result'; received: number; complete: number; histogram: number[] }
  | { kind: 'failed'; error: string };
export type ClientCmd = { kind: 'result'; expected: number; histogram: boolean } | { kind: 'stop' };

/** Delay histogram: 0.1 ms buckets up to 30 s (the last bucket holds everything later). */
export const BUCKET_MS = 0.1;
export const BUCKETS = 300_000;

function sentence(sid: number) {
  const at = now().toFixed(3);
  const text = `${at} and so my fellow americans ask not what your country can do for you`;
  return {
    origin: { sid, text, speaker_label: null, start_time: '00:00', is_final: true },
    translation: { sid, language: 'es', text, speaker_id: null, speaker_label: null, is_final: true },
  };
}

async function memory(): Promise<{ rss: number; heap: number }> {
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

const tick = () => new Promise((r) => setTimeout(r, 1000));

/**
 * Parley: the real app (startTestApp: real database, real HTTP server). One process: the
 * in-process bus. Several (`processes` > 1): each its own app on the Redis bus and seats
 * (REDIS_URL), sharing the first one's SQLite database; the first publishes, as the host's
 * node does (module.ts `host.publish`), and every process's viewers get it over Redis.
 */
export async function serveParley(
  o: { viewers: number; processes: number; redisUrl: string; dataDir?: string; token?: string },
  send: (m: ServerMsg) => void,
): Promise<(m: ServerCmd) => Promise<void>> {
  const { startTestApp } = await import('../test/support/app.js');
  const t = await startTestApp({
    backend: 'sqlite',
    contract: false, // as production runs: no test-only schema check on every SSE event
    reuse: o.dataDir ? { dataDir: o.dataDir } : undefined,
    // Every bench viewer comes from this one address: the per-source seat share is lifted.
    env: {
      PARLEY_BROADCAST_VIEWER_LIMIT: String(Math.max(o.viewers, 1)),
      PARLEY_BROADCAST_SOURCE_SEAT_PERCENT: '100',
      ...(o.processes > 1 ? { REDIS_URL: o.redisUrl } : {}),
    },
  });
  const { BroadcastStore } = await import('../src/broadcasts/store.js');
  const { viewerTopic, VIEWER_REPLAY_RETAIN } = await import('../src/broadcasts/viewer-events.js');
  let publish: ((event: string, data: Record<string, unknown>) => Promise<void>) | null = null;
  let token = o.token;
  if (!token) {
    const k = await t.app.deps.keys.createKey({ name: 'bench broadcast' });
    const created = await fetch(`${t.url}/api/v1/broadcasts`, {
      method: 'POST',
      headers: { 'x-api-key': k.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ transcription_languages: ['en'], translation_languages: ['es'], max_viewers: Math.max(o.viewers, 1) }),
    });
    const b = ((await created.json()) as { data: { id: string; token: string } }).data;
    token = b.token;
    // The broadcast is live as after the host's start (what the host's node writes).
    const store = new BroadcastStore(t.app.deps.database);
    const at = new Date();
    await store.beginHost(b.id, {
      hostKeyId: k.key_id,
      phase: 'live',
      now: at,
      session: randomUUID(),
      leaseUntil: new Date(at.getTime() + 3_600_000),
    });
    publish = (event, data) => t.app.deps.bus.publish(viewerTopic(b.id), { event, data }, { retain: VIEWER_REPLAY_RETAIN });
  }
  send({ kind: 'ready', url: `${t.url}/broadcast/${token}/text`, dataDir: t.dataDir, token });
  return async (m) => {
    if (m.kind === 'memory') send({ kind: 'memory', ...(await memory()) });
    else if (m.kind === 'run') {
      for (let sid = 1; publish && sid <= m.seconds; sid++) {
        const s = sentence(sid);
        await publish('origin', s.origin);
        await publish('translation', s.translation);
        await tick();
      }
      send({ kind: 'sent', count: m.seconds * 2 });
    } else {
      await t.close();
      process.exit(0);
    }
  };
}

/** The bare broadcaster: open responses in a Set, each event written to every one (each process its own). */
export async function serveBare(send: (m: ServerMsg) => void): Promise<(m: ServerCmd) => Promise<void>> {
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(`event: connected\ndata: {}\n\n`);
    open.add(res);
    req.on('close', () => open.delete(res));
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const write = (event: string, data: unknown) => {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of open) res.write(frame);
  };
  const { port } = server.address() as { port: number };
  send({ kind: 'ready', url: `http://127.0.0.1:${port}/sse` });
  return async (m) => {
    if (m.kind === 'memory') send({ kind: 'memory', ...(await memory()) });
    else if (m.kind === 'run') {
      for (let sid = 1; sid <= m.seconds; sid++) {
        const s = sentence(sid);
        write('origin', s.origin);
        write('translation', s.translation);
        await tick();
      }
      send({ kind: 'sent', count: m.seconds * 2 });
    } else {
      for (const res of open) res.destroy();
      server.close();
      process.exit(0);
    }
  };
}

/**
 * `count` viewers of `url` (raw node:http, `width` connecting at once): each parses every event
 * and records its delay from publish (the sender's clock, in the event) to parsed.
 */
export async function runClients(url: string, count: number, width: number, send: (m: ClientMsg) => void): Promise<(m: ClientCmd) => void> {
  const histogram = new Uint32Array(BUCKETS);
  const received = new Uint32Array(count);
  const requests: http.ClientRequest[] = [];
  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = http.get(url, { agent: false }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`viewer: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let buf = '';
        let connected = false;
        res.on('data', (chunk: string) => {
          const at = now();
          buf += chunk;
          for (let k = buf.indexOf('\n\n'); k >= 0; k = buf.indexOf('\n\n')) {
            const block = buf.slice(0, k);
            buf = buf.slice(k + 2);
            if (!connected && block.includes('event: connected')) {
              connected = true;
              resolve();
            }
            if (!block.includes('event: origin') && !block.includes('event: translation')) continue;
            const m = /"text":"(\d+\.\d+) /.exec(block);
            if (!m) continue;
            const bucket = Math.min(BUCKETS - 1, Math.max(0, Math.floor((at - Number(m[1])) / BUCKET_MS)));
            histogram[bucket] = (histogram[bucket] ?? 0) + 1;
            received[i] = (received[i] ?? 0) + 1;
          }
        });
        res.on('error', () => {});
      });
      req.on('error', reject);
      requests.push(req);
    });
  const start = now();
  try {
    for (let i = 0; i < count; i += width) {
      await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, k) => open(i + k)));
    }
  } catch (err) {
    send({ kind: 'failed', error: String(err) });
  }
  send({ kind: 'connected', seconds: (now() - start) / 1000 });
  return (m) => {
    if (m.kind === 'result') {
      let total = 0;
      let complete = 0;
      for (const r of received) {
        total += r;
        if (r >= m.expected) complete++;
      }
      send({ kind: 'result', received: total, complete, histogram: m.histogram ? Array.from(histogram) : [] });
    } else {
      for (const r of requests) r.destroy();
      process.exit(0);
    }
  };
}
