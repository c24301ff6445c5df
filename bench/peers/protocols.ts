/**
 * One live session per system, each over its own WebSocket protocol, fed the same 16 kHz s16le
 * audio in 100 ms chunks at real-time pace (against an absolute schedule, so timer drift does
 * not slow the stream). Every message is turned into what a caption viewer would show:
 *
 * - `seen`: per sentence of the protocol, its text at each message (interim) and the message
 *   that made it final (issue 14's per-word delay reads this).
 * - `display`: the whole transcript shown after each message (finals so far + pending text),
 *   the protocol-neutral view used to compare the three systems (see bench/peers.ts).
 * - `finalLags`: for every final, its arrival minus the send time of the chunk holding the end
 *   of the audio it covers, from the end time the protocol gives.
 *
 * Protocols (read from each project's client code):
 * - Parley: the spec's /ws with a ticket (subprotocol `ticket.<t>`), JSON `start`, base64 `audio`,
 *   `stop`; results carry `origin.sid`, `is_final`, `end_ms`; ends with `task_complete`.
 * - WhisperLiveKit: /asr (server started with --pcm-input), raw s16le binary frames; every
 *   message is the full state: `lines` (committed text: LocalAgreement never revises it, each
 *   line with its `end` as H:MM:SS.cc) and `buffer_transcription` (the uncommitted tail). An
 *   empty binary frame ends the stream; the server answers `{"type":"ready_to_stop"}`. A
 *   "final" (for the finals lag) is a commit: a message in which a line's committed text grew;
 *   its audio end is that line's `end`. For the per-sentence view a line is a sentence, final
 *   with its last text at the time it got that text.
 * - WhisperLive: a JSON options message first (uid, language, task, model, use_vad,
 *   audio_format int16, ...), wait for `SERVER_READY`, then raw s16le binary frames; messages
 *   carry the last segments `{start, end, text, completed}` (seconds as strings); a segment
 *   is final when `completed`. `END_OF_AUDIO` ends the stream; the server then closes the
 *   socket (it does not flush the pending segment: the text shown last is the client's final
 *   text, as WhisperLive's own client keeps it).
 */
import WebSocket from 'ws';
import { normalizeWords } from '../../src/engines/quality/wer.js';
import type { Seen } from '../word-delay.js';

export const CHUNK_MS = 100;
const CHUNK_BYTES = 32 * CHUNK_MS;
/** How long a session may take after its audio to end (the server's backlog drains). */
const END_TIMEOUT_MS = 120_000;

export interface SessionResult {
  seen: Seen[];
  display: Seen[];
  sentAt: number[];
  finalLags: number[];
  finalText: string;
  errors: string[];
  /** Whether the system said it was done (else the session was cut after END_TIMEOUT_MS). */
  ended: boolean;
}

/** What a protocol adapter must do; `send` and `end` are called by the pacing loop. */
interface Adapter {
  ws: WebSocket;
  /** Resolves when the session may stream (after the protocol's handshake). */
  ready: Promise<void>;
  send(chunk: Buffer): void;
  end(): void;
  /** Resolves when the system reported the end of the session. */
  done: Promise<void>;
  finalText(): string;
  /** Called once after the session: adds what only the end can tell (e.g. a line's last version). */
  finish?(): void;
}

export type Protocol = 'parley' | 'whisperlivekit' | 'whisperlive';

/** Streams `pcm` over `protocol` to `url` and collects what the client saw. */
export async function runSession(protocol: Protocol, url: string, pcm: Buffer, ticket?: string): Promise<SessionResult> {
  const out: SessionResult = { seen: [], display: [], sentAt: [], finalLags: [], finalText: '', errors: [], ended: false };
  const lagFor = (endMs: number, at: number) => {
    const t = out.sentAt[Math.min(Math.ceil(endMs / CHUNK_MS) - 1, out.sentAt.length - 1)];
    if (t !== undefined && endMs > 0) out.finalLags.push(at - t);
  };
  const adapter =
    protocol === 'parley'
      ? parley(url, ticket!, out, lagFor)
      : protocol === 'whisperlivekit'
        ? whisperLiveKit(url, out, lagFor)
        : whisperLive(url, out, lagFor);
  adapter.ws.on('error', (e) => out.errors.push(`socket: ${e.message}`));
  const closed = new Promise<void>((r) => adapter.ws.once('close', () => r()));
  await Promise.race([adapter.ready, closed]);
  if (adapter.ws.readyState !== WebSocket.OPEN) {
    out.errors.push('closed before streaming');
    return out;
  }
  const t0 = performance.now();
  for (let i = 0, k = 0; i < pcm.length; i += CHUNK_BYTES, k++) {
    const wait = t0 + k * CHUNK_MS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (adapter.ws.readyState !== WebSocket.OPEN) {
      out.errors.push('closed while streaming');
      break;
    }
    adapter.send(pcm.subarray(i, i + CHUNK_BYTES));
    out.sentAt.push(performance.now());
  }
  if (adapter.ws.readyState === WebSocket.OPEN) adapter.end();
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), END_TIMEOUT_MS).unref());
  const how = await Promise.race([adapter.done.then(() => 'done' as const), closed.then(() => 'closed' as const), timeout]);
  out.ended = how !== 'timeout';
  if (how === 'timeout') out.errors.push('no end of session');
  out.finalText = adapter.finalText();
  adapter.finish?.();
  adapter.ws.close();
  return out;
}

function parley(url: string, ticket: string, out: SessionResult, lagFor: (endMs: number, at: number) => void): Adapter {
  const ws = new WebSocket(url, [`ticket.${ticket}`]);
  const finals: string[] = [];
  let pending = '';
  let started!: () => void;
  let completed!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  const done = new Promise<void>((r) => (completed = r));
  const msg = (data: Record<string, unknown>) => ws.send(JSON.stringify({ type: 'voice-translation', data }));
  ws.once('open', () => msg({ action: 'start', type: 'transcribe', transcription_languages: ['en'] }));
  ws.on('message', (raw) => {
    const at = performance.now();
    const m = JSON.parse(raw.toString()) as { type: string; data: Record<string, unknown> & { origin?: Record<string, unknown> } };
    if (m.type === 'error') {
      if (m.data.severity !== 'warning') {
        out.errors.push(String(m.data.error_code));
        started();
      }
      return;
    }
    if (m.data.action === 'session_started') started();
    if (m.data.action === 'task_complete') completed();
    const o = m.data.origin;
    if (m.data.action !== 'result' || !o) return;
    const text = String(o.text ?? '');
    const final = Boolean(o.is_final);
    out.seen.push({ sid: Number(o.sid), final, words: normalizeWords(text), at });
    if (final) {
      if (text) finals.push(text);
      pending = '';
      lagFor(Number(o.end_ms), at);
    } else pending = text;
    out.display.push({ sid: 0, final: false, words: normalizeWords([...finals, pending].join(' ')), at });
  });
  return {
    ws,
    ready,
    done,
    send: (chunk) => msg({ action: 'audio', audio: chunk.toString('base64') }),
    end: () => msg({ action: 'stop' }),
    finalText: () => finals.join(' '),
  };
}

/** "H:MM:SS.cc" (WhisperLiveKit's times) in ms. */
function clockMs(t: unknown): number {
  const parts = String(t).split(':').map(Number);
  return Math.round(parts.reduce((s, p) => s * 60 + p, 0) * 1000);
}

function whisperLiveKit(url: string, out: SessionResult, lagFor: (endMs: number, at: number) => void): Adapter {
  const ws = new WebSocket(`${url}?language=en`);
  let lines: string[] = [];
  const lastChange: number[] = [];
  let buffer = '';
  let configured!: () => void;
  let stopped!: () => void;
  const ready = new Promise<void>((r) => (configured = r));
  const done = new Promise<void>((r) => (stopped = r));
  ws.on('message', (raw) => {
    const at = performance.now();
    const m = JSON.parse(raw.toString()) as {
      type?: string;
      error?: string;
      lines?: Array<{ text?: string; end?: string }>;
      buffer_transcription?: string;
    };
    if (m.type === 'config') return configured();
    if (m.type === 'ready_to_stop') return stopped();
    if (m.type === 'error' || m.error) out.errors.push(String(m.error));
    if (!m.lines) return;
    const now = m.lines.filter((l) => l.text).map((l) => ({ text: String(l.text).trim(), endMs: clockMs(l.end) }));
    buffer = String(m.buffer_transcription ?? '').trim();
    now.forEach((l, i) => {
      if (l.text !== (lines[i] ?? '')) {
        // Committed text grew: a final for the audio up to the line's end. For the per-sentence
        // view, the line (its sentence) is final with its last version (see finish()).
        out.seen.push({ sid: i, final: false, words: normalizeWords(l.text), at });
        lastChange[i] = at;
        lagFor(l.endMs, at);
      }
    });
    lines = now.map((l) => l.text);
    // The uncommitted tail is the interim of the last line's sentence.
    if (buffer)
      out.seen.push({
        sid: Math.max(0, lines.length - 1),
        final: false,
        words: normalizeWords([lines.at(-1) ?? '', buffer].join(' ')),
        at,
      });
    out.display.push({ sid: 0, final: false, words: normalizeWords([...lines, buffer].join(' ')), at });
  });
  return {
    ws,
    ready,
    done,
    send: (chunk) => ws.send(chunk),
    end: () => ws.send(Buffer.alloc(0)),
    finalText: () => [...lines, buffer].join(' '),
    finish: () => {
      for (const [i, text] of lines.entries()) out.seen.push({ sid: i, final: true, words: normalizeWords(text), at: lastChange[i] ?? 0 });
      out.seen.sort((a, b) => a.at - b.at);
    },
  };
}

function whisperLive(url: string, out: SessionResult, lagFor: (endMs: number, at: number) => void): Adapter {
  const ws = new WebSocket(url);
  const completed: Array<{ start: number; end: number; text: string }> = [];
  let pending = '';
  let serverReady!: () => void;
  const ready = new Promise<void>((r) => (serverReady = r));
  const uid = `bench-${Math.random().toString(36).slice(2)}`;
  ws.once('open', () =>
    ws.send(
      JSON.stringify({
        uid,
        language: 'en',
        task: 'transcribe',
        model: 'base', // replaced by the server's -fw model folder
        use_vad: true,
        send_last_n_segments: 10,
        no_speech_thresh: 0.45,
        clip_audio: false,
        same_output_threshold: 10,
        audio_format: 'int16',
      }),
    ),
  );
  ws.on('message', (raw) => {
    const at = performance.now();
    const m = JSON.parse(raw.toString()) as {
      message?: string;
      status?: string;
      segments?: Array<{ start: string; end: string; text: string; completed?: boolean }>;
    };
    if (m.message === 'SERVER_READY') return serverReady();
    if (m.status === 'ERROR' || m.status === 'WAIT') {
      out.errors.push(`${m.status}: ${m.message}`);
      return serverReady();
    }
    if (!m.segments?.length) return;
    pending = '';
    for (const [i, s] of m.segments.entries()) {
      const start = Number(s.start);
      const end = Number(s.end);
      const text = s.text.trim();
      if (s.completed) {
        // As WhisperLive's client keeps its transcript: a completed segment counts once, in time order.
        const last = completed.at(-1);
        if (!last || start >= last.end) {
          completed.push({ start, end, text });
          out.seen.push({ sid: completed.length - 1, final: true, words: normalizeWords(text), at });
          lagFor(end * 1000, at);
        }
      } else if (i === m.segments.length - 1) {
        pending = text;
        out.seen.push({ sid: completed.length, final: false, words: normalizeWords(text), at });
      }
    }
    out.display.push({ sid: 0, final: false, words: normalizeWords([...completed.map((c) => c.text), pending].join(' ')), at });
  });
  // WhisperLive has no end-of-session message: the server closes the socket after END_OF_AUDIO.
  const done = new Promise<void>((r) => ws.once('close', () => r()));
  return {
    ws,
    ready,
    done,
    send: (chunk) => ws.send(chunk),
    end: () => ws.send(Buffer.from('END_OF_AUDIO')),
    finalText: () => [...completed.map((c) => c.text), pending].join(' '),
  };
}
