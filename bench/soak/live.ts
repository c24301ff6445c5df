/**
 * Live clients over the WebSocket: recordings of whole loops (jfk + 1 s pause) sent at
 * real-time pace (100 ms chunks on an absolute schedule), back to back on one connection; or,
 * for the broadcast host, one recording from the start to the end of the run.
 */
import WebSocket from 'ws';
import { CHUNK_BYTES, CHUNK_MS, countError, LOOP, LOOP_MS, sleep } from './common.js';

export interface Recording {
  kind: 'live' | 'broadcast';
  taskId: string;
  loops: number;
  /** Audio sent (ms). */
  sentMs: number;
  /** Final sentences the client received (non-empty, by sid: a repeated sid counts once). */
  finals: Map<number, string>;
  completed: boolean;
  /** Error codes the server sent during the recording (stt_audio_dropped: recognition fell behind and audio was dropped). */
  errors: string[];
}

export const live = {
  recordings: [] as Recording[],
  /** Interim latencies (ms) since the last sample. */
  latencies: [] as number[],
  /** Times a client fell more than CATCH_UP_MS behind its schedule (this process stalled). */
  clientStalls: 0,
};

const CATCH_UP_MS = 300;

type Message = { type: string; data: Record<string, unknown> & { origin?: Record<string, unknown> } };

async function ticket(base: string, key: string): Promise<string> {
  const r = await fetch(`${base}/api/v1/auth/ticket`, { method: 'POST', headers: { 'x-api-key': key } });
  const body = (await r.json()) as { data: { ticket: string } };
  if (r.status !== 200) throw new Error(`ticket ${r.status}: ${JSON.stringify(body)}`);
  return body.data.ticket;
}

export interface ClientOptions {
  base: string;
  key: string;
  endAt: number;
  /** Loops per recording; 0: the broadcast host (one recording until the end). */
  loops: number;
  broadcastToken?: string;
  /** Called once the broadcast is live (the host's session_started). */
  onLive?: () => void;
}

/** One client until `endAt`: a recording starts only when it can end by then. */
export async function client(o: ClientOptions): Promise<void> {
  const ws = new WebSocket(`${o.base.replace('http', 'ws')}/ws`, [`ticket.${await ticket(o.base, o.key)}`]);
  let waiter: ((m: Message) => boolean) | null = null;
  let wake: () => void = () => {};
  const sentAt: number[] = [];
  let current: Recording | null = null;
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString()) as Message;
    if (m.type === 'error')
      countError(
        m.data.error_code === 'invalid_data'
          ? `invalid_data: ${String(m.data.message)} ${JSON.stringify(m.data.details ?? {})}`
          : String(m.data.error_code),
      );
    if (m.type === 'error' && current) current.errors.push(String(m.data.error_code));
    const origin = m.data.action === 'result' ? m.data.origin : undefined;
    if (origin && current) {
      if (origin.is_final) {
        const sid = Number(origin.sid);
        if (String(origin.text ?? '').trim() === '') current.finals.delete(sid);
        else if (!current.finals.has(sid)) current.finals.set(sid, String(origin.text));
      } else {
        const t = sentAt[Math.ceil(Number(origin.end_ms) / CHUNK_MS) - 1];
        if (t !== undefined) live.latencies.push(performance.now() - t);
      }
    }
    if (waiter?.(m)) {
      waiter = null;
      wake();
    }
  });
  const next = (pred: (m: Message) => boolean, ms: number) =>
    new Promise<Message | null>((resolve) => {
      let seen: Message | null = null;
      const timer = setTimeout(() => resolve(null), ms);
      waiter = (m) => {
        if (!pred(m)) return false;
        seen = m;
        return true;
      };
      wake = () => {
        clearTimeout(timer);
        resolve(seen);
      };
    });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.on('error', (err) => countError(`websocket: ${err.message}`));
  // A close ends every wait at once (no task_complete comes on a closed connection).
  ws.on('close', (code, reason) => {
    if (code !== 1000 && code !== 1005) countError(`closed ${code} ${reason.toString()}`);
    waiter = null;
    wake();
  });
  const send = (data: Record<string, unknown>) => ws.send(JSON.stringify({ type: 'voice-translation', data }));
  const host = o.loops === 0;
  for (;;) {
    const loops = host ? Math.floor((o.endAt - Date.now() - 5_000) / LOOP_MS) : o.loops;
    if (loops < 1 || Date.now() + loops * LOOP_MS > o.endAt || ws.readyState !== WebSocket.OPEN) break;
    const started = next((m) => m.data.action === 'session_started' || (m.type === 'error' && m.data.severity !== 'warning'), 30_000);
    send(
      host
        ? { action: 'start', type: 'broadcast', broadcast_token: o.broadcastToken, audio_format: 'pcm' }
        : { action: 'start', type: 'transcribe', transcription_languages: ['en'], audio_format: 'pcm' },
    );
    const answer = await started;
    if (answer?.data.action !== 'session_started') {
      countError(`start refused: ${answer ? String(answer.data.error_code) : 'no answer in 30 s'}`);
      break;
    }
    const rec: Recording = {
      kind: host ? 'broadcast' : 'live',
      taskId: String(answer.data.task_id),
      loops,
      sentMs: 0,
      finals: new Map(),
      completed: false,
      errors: [],
    };
    current = rec;
    live.recordings.push(rec);
    if (host) o.onLive?.();
    sentAt.length = 0;
    let t0 = performance.now();
    const chunks = (loops * LOOP.length) / CHUNK_BYTES;
    for (let k = 0; k < chunks && ws.readyState === WebSocket.OPEN; k++) {
      const wait = t0 + k * CHUNK_MS - performance.now();
      // Never faster than real time: after a stall of this process the schedule moves on
      // instead of catching up in a burst (which the server's 4x rate limit would drop).
      if (wait < -CATCH_UP_MS) {
        t0 -= wait;
        live.clientStalls++;
      }
      await sleep(wait);
      const at = (k * CHUNK_BYTES) % LOOP.length;
      ws.send(LOOP.subarray(at, at + CHUNK_BYTES));
      rec.sentMs += CHUNK_MS;
      sentAt.push(performance.now());
    }
    // Long: on a loaded machine recognition lags minutes behind and the stop waits for it.
    const done = next((m) => m.data.action === 'task_complete', 600_000);
    send({ action: 'stop' });
    rec.completed = (await done) !== null;
    current = null;
    if (host) break;
    if (!rec.completed) {
      countError(ws.readyState === WebSocket.OPEN ? 'no task_complete in 10 min' : 'no task_complete: the connection closed');
      break;
    }
  }
  ws.close();
}

/** A client that opens a new connection when the server closed its last one, until `endAt`. */
export async function reconnecting(o: ClientOptions): Promise<void> {
  while (Date.now() < o.endAt - o.loops * LOOP_MS) {
    await client(o);
    if (o.loops === 0) return;
    await sleep(1000);
  }
}
