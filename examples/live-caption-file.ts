/**
 * Live-caption an audio file as if it were a microphone: a ticket, the WebSocket with the
 * ticket subprotocol, start, 16 kHz mono PCM in 100 ms binary frames at real-time pace, stop.
 * Prints interim and final captions with their translation.
 *
 *   PARLEY_API_KEY=svc_... npx tsx examples/live-caption-file.ts ../shared/audio/jfk.flac
 *
 * PARLEY_BASE_URL (default http://localhost:8080) is the REST host; PARLEY_REALTIME_URL
 * (default: the same host) the real-time host; they may differ.
 */
import { spawn } from 'node:child_process';
import WebSocket from 'ws';

export interface LiveOptions {
  baseUrl: string;
  realtimeUrl?: string;
  apiKey: string;
  file: string;
  language?: string;
  translateTo?: string[];
  /** Send faster than real time (tests); 1 = real time. */
  speed?: number;
  onCaption?: (line: string) => void;
}

/** Returns the final sentences and the task id once the session has ended. */
export async function liveCaptionFile(o: LiveOptions): Promise<{ taskId: string; finals: string[] }> {
  const res = await fetch(`${o.baseUrl}/api/v1/auth/ticket`, { method: 'POST', headers: { 'X-API-Key': o.apiKey } });
  const body = (await res.json()) as { data: { ticket?: string; message?: string } };
  if (!res.ok || !body.data.ticket) throw new Error(`ticket: ${res.status} ${body.data.message}`);
  const ws = new WebSocket(`${(o.realtimeUrl ?? o.baseUrl).replace(/^http/, 'ws')}/ws`, [`ticket.${body.data.ticket}`]);
  const say = o.onCaption ?? ((line: string) => console.log(line));
  const finals: string[] = [];
  let taskId = '';
  const ended = new Promise<void>((resolve, reject) => {
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as { type: string; data: Record<string, any> };
      if (m.type === 'error') {
        say(`error ${m.data.error_code}: ${m.data.message}`);
        if (m.data.severity === 'fatal' && m.data.sid === undefined) reject(new Error(m.data.error_code));
        return;
      }
      if (m.type !== 'voice-translation') return;
      const d = m.data;
      switch (d.action) {
        case 'session_started':
          taskId = d.task_id;
          say(`session ${d.session_id}, task ${d.task_id}`);
          void sendAudio();
          break;
        case 'result':
          if (d.origin.is_final) finals.push(d.origin.text);
          say(`${d.origin.is_final ? 'final  ' : 'interim'} [${d.origin.sid}] ${d.origin.text}`);
          break;
        case 'translation':
          if (d.is_final) say(`        [${d.sid}] ${d.language}: ${d.text}`);
          break;
        case 'status':
          if (d.status === 'ended') resolve();
          break;
        default:
          break; // other events (and ones added later) are not needed here
      }
    });
    ws.on('close', () => resolve());
    ws.on('error', reject);
  });
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  ws.send(
    JSON.stringify({
      type: 'voice-translation',
      data: {
        action: 'start',
        type: 'transcribe',
        audio_format: 'pcm',
        transcription_languages: [o.language ?? 'en-US'],
        translation_languages: o.translateTo ?? ['es'],
      },
    }),
  );
  async function sendAudio() {
    const ffmpeg = spawn('ffmpeg', ['-loglevel', 'error', '-i', o.file, '-f', 's16le', '-ac', '1', '-ar', '16000', '-']);
    const frame = 3200; // 100 ms of 16 kHz 16-bit mono
    let pending = Buffer.alloc(0);
    for await (const chunk of ffmpeg.stdout) {
      pending = Buffer.concat([pending, chunk as Buffer]);
      while (pending.length >= frame) {
        ws.send(pending.subarray(0, frame));
        pending = pending.subarray(frame);
        await new Promise((r) => setTimeout(r, 100 / (o.speed ?? 1)));
      }
    }
    if (pending.length) ws.send(pending);
    ws.send(JSON.stringify({ type: 'voice-translation', data: { action: 'stop' } }));
  }
  await ended;
  ws.close();
  return { taskId, finals };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  const apiKey = process.env.PARLEY_API_KEY;
  if (!file || !apiKey) {
    console.error('usage: PARLEY_API_KEY=svc_... npx tsx examples/live-caption-file.ts <audio file>');
    process.exit(2);
  }
  const baseUrl = process.env.PARLEY_BASE_URL ?? 'http://localhost:8080';
  liveCaptionFile({ baseUrl, realtimeUrl: process.env.PARLEY_REALTIME_URL, apiKey, file }).then(
    (r) => console.log(`done: task ${r.taskId}, ${r.finals.length} sentences`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
