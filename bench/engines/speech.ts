/**
 * Speech section of the engine benchmark: the engines the catalog gives on this machine for
 * file recognition, streaming recognition, VAD and diarization, on real recordings
 * (Debian's LibriVox clips and ../shared/audio).
 *
 * - File STT: WER (word-level, lowercase, no punctuation) and RTF (processing time over
 *   audio time, decoders already loaded) on the LibriVox clips and on jfk.
 * - Streaming: audio is written in 100 ms chunks at real-time pace, each when its last sample
 *   "was spoken"; for each utterance (a VAD segment of the clip) "time to first partial" is
 *   the wall time from its speech onset to the arrival of its first interim result, and
 *   "interim lag" is the time from the end of the audio an interim covers to its arrival.
 * - Diarization on stereo_diarization.wav mixed to mono; the reference is per-channel VAD
 *   (left = one speaker, right = the other). The two voices overlap for ~2 s, and in overlap
 *   either speaker counts as right, with the best mapping of found to reference speakers.
 *   Then jfk, each LibriVox clip and the clips joined must each stay one speaker; RTF over them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { decodeToPcm } from '../../src/engines/audio/ffmpeg.js';
import { CATALOG } from '../../src/engines/catalog.js';
import { normalizeWords, wordErrorRate } from '../../src/engines/quality/wer.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { Diarizer, FileRecognizer, PcmAudio, SpeechSegment, SttResult } from '../../src/engines/types.js';
import { liveFinalRows } from './live-finals.js';
import { type Scored, scliteWer } from './sclite.js';
import { atLeast, atMost, type BenchRow } from './types.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const SHARED = join(import.meta.dirname, '..', '..', '..', 'shared', 'audio');
const JFK_TEXT = 'And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.';
const SPEECH_KINDS = new Set(['streaming-stt', 'file-stt', 'vad', 'diarizer']);

interface Clip {
  name: string;
  audio: PcmAudio;
  text: string;
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
}

function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32767)));
  return out;
}

async function loadClips(ffmpegPath: string): Promise<{ librivox: Clip[]; jfk?: Clip }> {
  const librivox: Clip[] = [];
  const t = join(LIBRIVOX, 'transcription');
  if (existsSync(t)) {
    for (const line of readFileSync(t, 'utf8').trim().split('\n')) {
      const m = /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim());
      if (m) librivox.push({ name: m[2]!, text: m[1]!, audio: await decodeToPcm(join(LIBRIVOX, `${m[2]}.wav`), { ffmpegPath }) });
    }
  }
  const jfkPath = join(SHARED, 'jfk.flac');
  const jfk = existsSync(jfkPath) ? { name: 'jfk', text: JFK_TEXT, audio: await decodeToPcm(jfkPath, { ffmpegPath }) } : undefined;
  return { librivox, jfk };
}

/** 50 terms unrelated to the test recordings (most are not in the dictionary): recognition must not get worse with them. */
const UNRELATED_TERMS = (
  'Kubernetes PostgreSQL Picovoice TensorFlow Fastify Grafana Prometheus Terraform Ansible Jenkins ' +
  'Kafka Elasticsearch Kibana Redis Nginx Webpack Vite Svelte Angular Django Laravel Symfony Kotlin ' +
  'Haskell Erlang Elixir Clojure Scala Rust Golang Deno Bun Vercel Netlify Cloudflare Dropbox Figma ' +
  'Notion Trello Jira Confluence Slack Zoom Miro Zapier Stripe Shopify Twilio Okta Auth0'
).split(' ');

interface FileScore {
  wer: number;
  rtf: number;
  audioS: number;
  pairs: Scored[];
  /** Per clip: name, errors, reference words. */
  clips: Array<{ name: string; errors: number; words: number }>;
}

/** WER (errors over reference words, all clips together) and RTF of the file recognizer. */
async function scoreFiles(rec: FileRecognizer, clips: Clip[], terms?: string[]): Promise<FileScore> {
  let errors = 0;
  let words = 0;
  let audioS = 0;
  let busyMs = 0;
  const pairs: Scored[] = [];
  const perClip: FileScore['clips'] = [];
  for (const c of clips) {
    const t0 = performance.now();
    const r = await rec.transcribe(c.audio, { language: 'en-US', terms });
    busyMs += performance.now() - t0;
    const n = normalizeWords(c.text).length;
    errors += wordErrorRate(c.text, r.text) * n;
    words += n;
    perClip.push({ name: c.name, errors: Math.round(wordErrorRate(c.text, r.text) * n), words: n });
    audioS += c.audio.samples.length / c.audio.sampleRate;
    pairs.push({ reference: c.text, hypothesis: r.text });
  }
  return { wer: (errors / words) * 100, rtf: busyMs / 1000 / audioS, audioS, pairs, clips: perClip };
}

/** File WER and RTF, the same with an unrelated glossary, and the WER checked against sclite. */
async function fileRows(
  registry: EngineRegistry,
  sets: Array<{ label: string; clips: Clip[] }>,
): Promise<{ rows: BenchRow[]; jfkWer?: number }> {
  const rec = registry.find({ kind: 'file-stt', language: 'en-US' });
  if (!rec) return { rows: [{ name: 'file STT: no engine', value: Number.NaN, unit: '' }] };
  const rows: BenchRow[] = [];
  const pairs: Scored[] = [];
  let jfkWer: number | undefined;
  for (const { label, clips } of sets) {
    if (clips.length === 0) continue;
    const plain = await scoreFiles(rec, clips);
    pairs.push(...plain.pairs);
    if (label === 'jfk') jfkWer = plain.wer;
    const name = `${rec.id} file ${label} (${plain.audioS.toFixed(1)} s)`;
    rows.push(atMost(`${name} WER`, plain.wer, '%', 25));
    if (plain.clips.length > 1)
      for (const c of plain.clips)
        rows.push({ name: `  ${c.name}: ${c.errors} errors in ${c.words} words`, value: (c.errors / c.words) * 100, unit: '%' });
    rows.push(atMost(`${name} RTF`, plain.rtf, 'x realtime', 0.35));
    const glossary = await scoreFiles(rec, clips, UNRELATED_TERMS);
    rows.push(
      atMost(
        `${name} WER with an unrelated glossary of ${UNRELATED_TERMS.length} terms`,
        glossary.wer,
        '%',
        Number((plain.wer + 1).toFixed(1)),
      ),
    );
  }
  const ours = (() => {
    let e = 0;
    let n = 0;
    for (const p of pairs) {
      const k = normalizeWords(p.reference).length;
      e += wordErrorRate(p.reference, p.hypothesis) * k;
      n += k;
    }
    return (e / n) * 100;
  })();
  const sclite = scliteWer(pairs);
  if (sclite === null)
    rows.push({ name: 'WER check against NIST sclite: sctk not installed (apt-get install sctk)', value: Number.NaN, unit: '' });
  else {
    rows.push({
      name: `file WER of those ${pairs.length} recordings, scored by sclite (ours ${ours.toFixed(2)} %)`,
      value: sclite,
      unit: '%',
    });
    rows.push(atMost("difference between our WER and sclite's", Math.abs(ours - sclite), 'points', 0.1));
  }
  return { rows, jfkWer };
}

/** Feeds one clip at real-time pace; returns first-partial latencies per utterance and interim lags. */
async function streamClip(registry: EngineRegistry, clip: Clip, speech: SpeechSegment[]): Promise<{ first: number[]; lag: number[] }> {
  const rec = registry.find({ kind: 'streaming-stt', language: 'en-US' });
  if (!rec) return { first: [], lag: [] };
  const arrivals: Array<{ r: SttResult; at: number }> = [];
  const stream = await rec.open({
    language: 'en-US',
    interimResults: true,
    onResult: (r) => arrivals.push({ r, at: performance.now() }),
    onError: () => {},
  });
  const pcm = toInt16(clip.audio.samples);
  const chunk = 1600;
  const t0 = performance.now();
  for (let i = 0; i < pcm.length; i += chunk) {
    // Like a live microphone: a chunk is written when its last sample has been spoken, so
    // audio position p (ms) exists from t0 + p on.
    const due = t0 + ((i + chunk) / chunk) * 100;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    stream.write(pcm.subarray(i, i + chunk));
  }
  await stream.end();
  const interims = arrivals.filter((a) => !a.r.isFinal);
  const first: number[] = [];
  speech.forEach((seg, k) => {
    const next = speech[k + 1]?.startMs ?? Number.POSITIVE_INFINITY;
    const hit = interims.find((a) => a.r.endMs > seg.startMs && a.r.endMs <= next);
    // Speech onset was spoken at t0 + startMs; an utterance without any interim is left out.
    if (hit) first.push(hit.at - (t0 + seg.startMs));
  });
  // Lag: from the moment the last audio an interim covers was spoken to its arrival.
  const lag = interims.map((a) => a.at - (t0 + a.r.endMs));
  return { first, lag };
}

async function streamingRows(registry: EngineRegistry, clips: Clip[]): Promise<BenchRow[]> {
  const vad = registry.find({ kind: 'vad' });
  const rec = registry.find({ kind: 'streaming-stt', language: 'en-US' });
  if (!vad || !rec || clips.length === 0) return [{ name: 'streaming STT: no engine or no audio', value: Number.NaN, unit: '' }];
  const first: number[] = [];
  const lag: number[] = [];
  let audioS = 0;
  for (const c of clips) {
    const got = await streamClip(registry, c, await vad.segments(c.audio));
    first.push(...got.first);
    lag.push(...got.lag);
    audioS += c.audio.samples.length / 16000;
  }
  const label = `${rec.id} streaming, real-time pace (${audioS.toFixed(0)} s, ${first.length} utterances)`;
  return [
    { name: `${label} first partial p50`, value: percentile(first, 50), unit: 'ms' },
    atMost(`${label} first partial p95`, percentile(first, 95), 'ms', 300),
    { name: `${label} interim lag p50`, value: percentile(lag, 50), unit: 'ms' },
    { name: `${label} interim lag p95`, value: percentile(lag, 95), unit: 'ms' },
  ];
}

async function diarizationRows(registry: EngineRegistry, ffmpegPath: string, oneSpeaker: Clip[]): Promise<BenchRow[]> {
  const file = join(SHARED, 'stereo_diarization.wav');
  const diarizer = registry.find({ kind: 'diarizer' });
  const vad = registry.find({ kind: 'vad' });
  if (!existsSync(file)) return [{ name: 'diarization: ../shared/audio absent', value: Number.NaN, unit: '' }];
  if (!diarizer || !vad) return [atLeast('diarization stereo_diarization (mono): no diarizer configured', Number.NaN, '%', 90)];
  const [mono, left, right] = await Promise.all([
    decodeToPcm(file, { ffmpegPath }),
    decodeToPcm(file, { ffmpegPath, channel: 0 }),
    decodeToPcm(file, { ffmpegPath, channel: 1 }),
  ]);
  const ref = [await vad.segments(left), await vad.segments(right)];
  const t0 = performance.now();
  const turns = await diarizer.diarize(mono);
  const ms = performance.now() - t0;
  const ids = [...new Set(turns.map((t) => t.speakerId))];
  const active = (segs: SpeechSegment[], at: number) => segs.some((s) => at >= s.startMs && at < s.endMs);
  let best = 0;
  // Every mapping of found speakers to the two channels; the best one is the score.
  for (let mask = 0; mask < 1 << ids.length; mask++) {
    let speech = 0;
    let right_ = 0;
    for (let at = 0; at < (mono.samples.length / 16000) * 1000; at += 10) {
      const on = ref.map((r) => active(r, at));
      if (!on[0] && !on[1]) continue;
      speech++;
      const who = turns.find((t) => at >= t.startMs && at < t.endMs)?.speakerId;
      if (who === undefined) continue;
      const channel = (mask >> ids.indexOf(who)) & 1;
      if (on[channel]) right_++;
    }
    best = Math.max(best, (right_ / speech) * 100);
  }
  return [
    {
      ...atLeast(`${diarizer.id} stereo_diarization (mono) speakers found`, ids.length, 'speakers', 2),
      target: '= 2',
      ok: ids.length === 2,
    },
    atLeast(`${diarizer.id} stereo_diarization (mono) speech time to the right speaker`, ids.length === 2 ? best : 0, '%', 90),
    { name: `${diarizer.id} stereo_diarization (mono) time`, value: ms, unit: 'ms' },
    atMost(`${diarizer.id} stereo_diarization (mono) RTF`, ms / 1000 / (mono.samples.length / 16000), 'x realtime', 0.2),
    ...(await oneSpeakerRows(diarizer, oneSpeaker)),
  ];
}

/** Single-speaker recordings (jfk, each LibriVox clip, the clips joined) must stay one speaker; RTF over all of them. */
async function oneSpeakerRows(diarizer: Diarizer, clips: Clip[]): Promise<BenchRow[]> {
  if (clips.length === 0) return [];
  const joined = new Float32Array(clips.reduce((n, c) => n + c.audio.samples.length, 0));
  let at = 0;
  for (const c of clips.filter((c) => c.name !== 'jfk')) {
    joined.set(c.audio.samples, at);
    at += c.audio.samples.length;
  }
  const all = [...clips, { name: 'LibriVox joined', text: '', audio: { sampleRate: 16000, samples: joined.subarray(0, at) } }];
  let kept = 0;
  let busyMs = 0;
  let audioS = 0;
  const split: string[] = [];
  for (const c of all) {
    const t0 = performance.now();
    const turns = await diarizer.diarize(c.audio);
    busyMs += performance.now() - t0;
    audioS += c.audio.samples.length / 16000;
    const speakers = new Set(turns.map((t) => t.speakerId)).size;
    if (speakers === 1) kept++;
    else split.push(`${c.name}: ${speakers}`);
  }
  return [
    {
      name: `${diarizer.id} one-speaker recordings kept as one speaker${split.length ? ` (split: ${split.join(', ')})` : ''}`,
      value: kept,
      unit: `of ${all.length}`,
      target: `= ${all.length}`,
      ok: kept === all.length,
    },
    atMost(`${diarizer.id} RTF on those (${audioS.toFixed(0)} s)`, busyMs / 1000 / audioS, 'x realtime', 0.2),
  ];
}

export async function run(): Promise<BenchRow[]> {
  const config = loadConfig();
  const registry = await EngineRegistry.create(
    { config, modelsDir: config.engines.modelsDir ?? join(config.platform.dataDir, 'models'), logger: pino({ level: 'silent' }) },
    CATALOG.filter((f) => SPEECH_KINDS.has(f.kind)),
  );
  try {
    const { librivox, jfk } = await loadClips(config.engines.ffmpegPath);
    // Warm-up: the first decoder of the pool loads its model (~1 s); that is start-up, not per file.
    const warm = registry.find({ kind: 'file-stt', language: 'en-US' });
    if (warm && librivox[0]) await warm.transcribe(librivox[0].audio, { language: 'en-US' });
    const rows: BenchRow[] = [];
    const files = await fileRows(registry, [
      { label: `LibriVox ${librivox.length} clips`, clips: librivox },
      { label: 'jfk', clips: jfk ? [jfk] : [] },
    ]);
    rows.push(...files.rows);
    if (jfk && files.jfkWer !== undefined) rows.push(...(await liveFinalRows(registry, jfk, files.jfkWer, config.engines.ffmpegPath)));
    // Every clip at real time (~36 s): p95 over ~10 utterances rather than a handful.
    rows.push(...(await streamingRows(registry, [...(jfk ? [jfk] : []), ...librivox])));
    rows.push(...(await diarizationRows(registry, config.engines.ffmpegPath, [...(jfk ? [jfk] : []), ...librivox])));
    return rows;
  } finally {
    await registry.close();
  }
}
