/**
 * A real local HTTP server (port 0) speaking the OpenAI-compatible protocol the remote tier
 * uses: streaming SSE chat completions with usage in the last chunk, /audio/transcriptions
 * (multipart, verbose_json) and /audio/speech (real MP3 from ffmpeg). Tests script failures
 * (429 with Retry-After, 500, slow answers, dropped connections) and a content filter that
 * refuses any prompt containing a marker word. A test double: only for tests.
 *
 * Transcriptions answer with `transcript` spread over the audio, or, when `recognizer` is
 * set, with what a real file recognizer (e.g. the built-in PocketSphinx) hears in the upload,
 * so streaming over a remote server is tested on real speech.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FileRecognizer, FileTranscript, Synthesizer } from '../../src/engines/types.js';

export type Scripted = { status: number; body?: unknown; headers?: Record<string, string> } | { slowMs: number } | { drop: true };

interface ChatBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
}

export interface Recorded {
  path: string;
  headers: IncomingMessage['headers'];
  json?: unknown;
  form?: Record<string, string[]>;
  at: number;
}

export interface OpenAiServer {
  url: string;
  requests: Recorded[];
  /** Next answers, in order, before normal service resumes. */
  script: Scripted[];
  /** The assistant's reply for a chat request (default: a short deterministic text; may come from a real engine). */
  reply: (messages: ChatBody['messages']) => string | Promise<string>;
  /** Prompts containing one of these words are refused. */
  filterWords: string[];
  /** How a refusal looks: finish_reason 'content_filter' in the stream, or a 400 error with code content_filter. */
  filterMode: 'finish' | 'error';
  /** Words the transcription endpoint "hears", spread evenly across the audio. */
  transcript: string;
  /**
   * Language detection as Whisper servers do it: a transcription request naming no language
   * reports the next language of this list (an English name, as verbose_json does; 'english'
   * when the list is empty); a request naming one reports that one. `transcripts` gives the
   * words heard per reported language (default `transcript`).
   */
  detect: string[];
  transcripts: Record<string, string>;
  /** When set, transcriptions come from this real recognizer run on the uploaded WAV. */
  recognizer?: FileRecognizer;
  /** When set, /audio/speech answers with this real synthesizer's MP3 (spoken as en-US). */
  synthesizer?: Synthesizer;
  /** Transcription requests being answered now, and the most ever answered at once. */
  transcriptionsInFlight: number;
  maxTranscriptionsInFlight: number;
  apiKey?: string;
  /** Stream this many ms apart per chunk (slow streams). */
  chunkDelayMs: number;
  close(): Promise<void>;
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

function wavDurationSec(wav: Buffer): number {
  const rate = wav.readUInt32LE(24);
  return (wav.length - 44) / 2 / rate;
}

function wavToPcm(wav: Buffer): { sampleRate: number; samples: Float32Array } {
  const n = (wav.length - 44) >> 1;
  const samples = new Float32Array(n);
  for (let i = 0; i < n; i++) samples[i] = wav.readInt16LE(44 + i * 2) / 32768;
  return { sampleRate: wav.readUInt32LE(24), samples };
}

/** A transcript in OpenAI's verbose_json shape (seconds, segments, words). */
function verboseJson(t: FileTranscript) {
  return {
    task: 'transcribe',
    language: 'english',
    duration: t.durationMs / 1000,
    text: t.text,
    segments: t.segments.map((s, id) => ({ id, start: s.startMs / 1000, end: s.endMs / 1000, text: ` ${s.text}` })),
    words: t.segments.flatMap((s) => s.words).map((w) => ({ word: w.text, start: w.startMs / 1000, end: w.endMs / 1000 })),
  };
}

export async function startOpenAiServer(): Promise<OpenAiServer> {
  const state: Omit<OpenAiServer, 'url' | 'close'> = {
    requests: [],
    script: [],
    reply: (messages) => `Reply to ${messages.length} messages: ${messages.at(-1)?.content.slice(0, 40) ?? ''}`,
    filterWords: ['FORBIDDEN'],
    filterMode: 'finish',
    transcript: 'hello from the remote server',
    detect: [],
    transcripts: {},
    transcriptionsInFlight: 0,
    maxTranscriptionsInFlight: 0,
    chunkDelayMs: 0,
  };
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '').replace(/^\/v1/, '');
    const raw = await readBody(req);
    const rec: Recorded = { path, headers: req.headers, at: Date.now() };
    state.requests.push(rec);
    const step = state.script.shift();
    if (step && 'drop' in step) return req.socket.destroy();
    if (step && 'slowMs' in step) await new Promise((r) => setTimeout(r, step.slowMs));
    if (step && 'status' in step)
      return send(res, step.status, step.body ?? { error: { message: `scripted ${step.status}` } }, step.headers);
    if (state.apiKey && req.headers.authorization !== `Bearer ${state.apiKey}`)
      return send(res, 401, { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } });
    if (path === '/chat/completions') {
      const body = JSON.parse(raw.toString()) as ChatBody;
      rec.json = body;
      if (body.model === 'missing') return send(res, 404, { error: { message: 'model not found', code: 'model_not_found' } });
      const prompt = body.messages.map((m) => m.content).join('\n');
      const refused = state.filterWords.some((w) => prompt.includes(w));
      if (refused && state.filterMode === 'error')
        return send(res, 400, { error: { message: 'The response was filtered', code: 'content_filter' } });
      let reply: string;
      try {
        reply = refused ? '' : await state.reply(body.messages);
      } catch (err) {
        return send(res, 500, { error: { message: `the engine behind the server failed: ${String(err)}` } });
      }
      let words = refused ? [] : reply.split(/(?<= )/);
      let finish = refused ? 'content_filter' : 'stop';
      if (body.max_tokens !== undefined && words.length > body.max_tokens) {
        words = words.slice(0, body.max_tokens);
        finish = 'length';
      }
      const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: words.length, total_tokens: 0 };
      if (!body.stream) {
        return send(res, 200, {
          choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: finish }],
          usage,
        });
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      for (const w of words) {
        if (res.destroyed) return;
        chunk({ choices: [{ index: 0, delta: { content: w }, finish_reason: null }] });
        if (state.chunkDelayMs) await new Promise((r) => setTimeout(r, state.chunkDelayMs));
      }
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
      if (body.stream_options?.include_usage) chunk({ choices: [], usage });
      res.end('data: [DONE]\n\n');
      return;
    }
    if (path === '/audio/transcriptions') {
      const form = await new Request('http://x/', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: raw,
      }).formData();
      const fields: Record<string, string[]> = {};
      let wav = Buffer.alloc(44);
      for (const [k, v] of form.entries()) {
        if (typeof v === 'string') fields[k] = [...(fields[k] ?? []), v];
        else wav = Buffer.from(await v.arrayBuffer());
      }
      rec.form = fields;
      if (state.recognizer) {
        state.transcriptionsInFlight++;
        state.maxTranscriptionsInFlight = Math.max(state.maxTranscriptionsInFlight, state.transcriptionsInFlight);
        try {
          const t = await state.recognizer.transcribe(wavToPcm(wav), { language: fields.language?.[0] ?? 'en' });
          return send(res, 200, verboseJson(t));
        } catch (err) {
          return send(res, 500, { error: { message: String(err) } });
        } finally {
          state.transcriptionsInFlight--;
        }
      }
      const duration = wavDurationSec(wav);
      const requested = fields.language?.[0];
      const language = requested ?? state.detect.shift() ?? 'english';
      const ws = (state.transcripts[language] ?? state.transcript).split(' ');
      const per = duration / ws.length;
      const words = ws.map((w, i) => ({ word: w, start: i * per, end: (i + 0.8) * per }));
      const half = Math.ceil(ws.length / 2);
      return send(res, 200, {
        task: 'transcribe',
        language,
        duration,
        text: ws.join(' '),
        segments: [
          { id: 0, start: 0, end: half * per, text: ` ${ws.slice(0, half).join(' ')}` },
          { id: 1, start: half * per, end: duration, text: ` ${ws.slice(half).join(' ')}` },
        ],
        words,
      });
    }
    if (path === '/audio/speech') {
      const body = JSON.parse(raw.toString()) as { input: string; speed?: number };
      rec.json = body;
      if (state.synthesizer) {
        const r = await state.synthesizer.synthesize(body.input, { language: 'en-US', speakingRate: body.speed });
        res.writeHead(200, { 'content-type': 'audio/mpeg' });
        return res.end(r.mp3);
      }
      const seconds = Math.max(0.5, (body.input.length * 0.06) / (body.speed ?? 1));
      const mp3 = execFileSync('ffmpeg', [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        `sine=frequency=220:duration=${seconds.toFixed(2)}`,
        '-f',
        'mp3',
        'pipe:1',
      ]);
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      return res.end(mp3);
    }
    send(res, 404, { error: { message: `no route ${path}` } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const api = Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return api as OpenAiServer;
}
