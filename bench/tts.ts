/**
 * TTS time to first audio (issue 18), printed, before and after in the same run:
 *
 *   npm run -s bench:tts
 *
 * 1. Encoder, back-to-back sentences (eSpeak PCM of real sentences, rendered once):
 *    "before" = one ffmpeg per sentence with a spare started ahead of need (the previous
 *    WarmMp3Encoder, reproduced here), "after" = the long-running StreamingMp3Encoder.
 *    Time from handing over a sentence's PCM to its whole MP3.
 * 2. End to end: `GET /api/v1/sse/tts/{task}` on the real app (eSpeak, 10 sentences), time
 *    from the request to the first `tts_audio` event, and between events.
 * 3. The neural English voice (neural/sherpa-tts, Piper joe where setup installed it) against
 *    eSpeak NG, alternating in the same run: real-time factor of `synthesize` (MP3 included)
 *    and first audio of the sentence stream (time to the first sentence's MP3 of a
 *    three-sentence text), with the ratios.
 * 4. The same for Japanese: Kokoro's Japanese voices (neural/kokoro-tts, in its engine host)
 *    against eSpeak NG's Japanese, on Japanese sentences.
 * `npm run -s bench:tts -- japanese` runs only the last (the others: `english`, `encoder`, `sse`).
 * Run it on an idle machine for clean numbers; the load average is printed with them.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { loadConfig } from '../src/config.js';
import { espeakFactory } from '../src/engines/builtin/espeak.js';
import { StreamingMp3Encoder } from '../src/engines/builtin/espeak-mp3.js';
import { espeakSampleRate, espeakSynthesize } from '../src/engines/builtin/espeak-native.js';
import { modelsDirFrom } from '../src/engines/models/paths.js';
import { kokoroTtsFactory } from '../src/engines/neural/kokoro-tts.js';
import { sherpaTtsFactory } from '../src/engines/neural/sherpa-tts.js';
import { type EngineFactory, EngineRegistry } from '../src/engines/registry.js';
import { synthesisStream } from '../src/engines/tts-stream.js';
import type { AnyEngine, Synthesizer } from '../src/engines/types.js';
import { createLogger } from '../src/platform/logging.js';
import { startTestApp } from '../test/support/app.js';

const SENTENCES = [
  'And so, my fellow Americans, ask not what your country can do for you.',
  'Ask what you can do for your country.',
  'The house is big and the garden is small.',
  'We will meet again tomorrow morning at nine.',
  'Thank you all for coming today.',
];
/** Japanese sentences of 2-4 s (kanji, kana, a number, a loanword). */
const JA_SENTENCES = [
  '会議は午後三時から始まります。',
  '資料を準備してください。',
  '来週の予定を確認しましょう。',
  '新しいシステムは来月から使えます。',
  '今日はご参加ありがとうございました。',
];
const ROUNDS = 4;

/** The previous design: one ffmpeg per sentence, the next one started as soon as one is used. */
class SpawnPerSentence {
  private spare: { child: ChildProcessWithoutNullStreams; done: Promise<Buffer> };
  constructor(private readonly rate: number) {
    this.spare = this.start();
  }
  private start() {
    const child = spawn('ffmpeg', [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-f',
      's16le',
      '-ar',
      String(this.rate),
      '-ac',
      '1',
      '-i',
      'pipe:0',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '48k',
      '-f',
      'mp3',
      'pipe:1',
    ]);
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    const done = new Promise<Buffer>((resolve, reject) =>
      child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg ${code}`)))),
    );
    done.catch(() => {});
    return { child, done };
  }
  encode(pcm: Buffer): Promise<Buffer> {
    const job = this.spare;
    this.spare = this.start();
    job.child.stdin.end(pcm);
    return job.done;
  }
  close() {
    this.spare.child.kill('SIGKILL');
  }
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const p = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return `median ${p(0.5).toFixed(1)} ms, p90 ${p(0.9).toFixed(1)} ms, max ${s.at(-1)!.toFixed(1)} ms (n=${s.length})`;
};

async function encoderBench(): Promise<void> {
  const rate = espeakSampleRate();
  const pcm = SENTENCES.map((t) => {
    const r = espeakSynthesize(t, 'en-us+f3', 175);
    return Buffer.from(r.pcm.buffer, r.pcm.byteOffset, r.pcm.byteLength);
  });
  const before = new SpawnPerSentence(rate);
  const after = new StreamingMp3Encoder('ffmpeg', rate);
  await new Promise((r) => setTimeout(r, 500)); // both warm: the spare and the stream are running
  const times: Record<string, number[]> = { before: [], after: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, enc] of [
      ['before', before],
      ['after', after],
    ] as const) {
      for (const p of pcm) {
        const t0 = performance.now();
        await enc.encode(p);
        times[name]!.push(performance.now() - t0);
      }
    }
  }
  before.close();
  after.close();
  console.log('MP3 encoding of a sentence, back to back (eSpeak PCM, 1.5-4 s of speech):');
  console.log(`  before (one ffmpeg per sentence, spare started ahead): ${stats(times.before!)}`);
  console.log(`  after  (one long-running ffmpeg, frames cut per sentence): ${stats(times.after!)}`);
}

async function endToEndBench(): Promise<void> {
  const ctx = { config: loadConfig({}), modelsDir: '/nowhere', logger: createLogger('silent') };
  const espeak = await espeakFactory.create(ctx as never);
  if ('unavailable' in espeak) throw new Error(espeak.unavailable);
  const t = await startTestApp({
    backend: process.env.DATABASE_URL ? 'postgres' : 'sqlite',
    contract: false, // as production runs: no test-only schema check on every event
    engines: EngineRegistry.fromEngines([espeak as AnyEngine]),
  });
  try {
    const k = await t.app.deps.keys.createKey({ name: 'bench' });
    const store = t.app.deps.tasks.store;
    const task = await store.createTask({
      accountId: k.account_id,
      keyId: k.key_id,
      title: 'bench',
      type: 'transcribe',
      typeSource: 'import',
      recognitionMode: 'single',
      transcriptionLanguages: ['en-US'],
      translationLanguages: null,
      processingStatus: 'processing',
    });
    await store.appendSentences(
      task.taskId,
      Array.from({ length: 10 }, (_, i) => ({
        sid: i + 1,
        origin: SENTENCES[i % SENTENCES.length]!,
        startMs: i * 3000,
        endMs: i * 3000 + 2500,
        language: 'en-US',
      })),
    );
    await store.setStatus(task.taskId, 'completed');
    const first: number[] = [];
    const between: number[] = [];
    for (let round = 0; round < ROUNDS * 2; round++) {
      const t0 = performance.now();
      const res = await fetch(`${t.url}/api/v1/sse/tts/${task.taskId}?language=en-US&sid=1&length=10`, {
        headers: { 'x-api-key': k.api_key },
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      let last = 0;
      let seen = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        let i = text.indexOf('\n\n');
        while (i !== -1) {
          const block = text.slice(0, i);
          text = text.slice(i + 2);
          if (block.startsWith('event: tts_audio')) {
            const now = performance.now();
            if (seen === 0) first.push(now - t0);
            else between.push(now - last);
            last = now;
            seen++;
          }
          i = text.indexOf('\n\n');
        }
      }
      if (seen !== 10) throw new Error(`expected 10 tts_audio events, got ${seen}`);
    }
    console.log('GET /api/v1/sse/tts (eSpeak, 10 sentences, back-to-back requests):');
    console.log(`  request to first tts_audio: ${stats(first)}`);
    console.log(`  between tts_audio events:   ${stats(between)}`);
  } finally {
    await t.close();
    await (espeak as AnyEngine).close?.();
  }
}

/** A neural voice against eSpeak NG in one language, alternating in the same run. */
async function neuralBench(factory: EngineFactory, language: string, sentences: string[]): Promise<void> {
  const config = loadConfig();
  const ctx = { config, modelsDir: modelsDirFrom(config), logger: createLogger('silent'), loaded: [] };
  const loadStart = performance.now();
  const neural = await factory.create(ctx);
  const loadMs = performance.now() - loadStart;
  if ('unavailable' in neural) {
    console.log(`${factory.id} vs eSpeak (${language}): skipped (${neural.unavailable})`);
    return;
  }
  const espeak = await espeakFactory.create(ctx);
  if ('unavailable' in espeak) throw new Error(espeak.unavailable);
  const engines = { neural: neural as Synthesizer, espeak: espeak as Synthesizer };
  const rtf: Record<string, number[]> = { neural: [], espeak: [] };
  const first: Record<string, number[]> = { neural: [], espeak: [] };
  const warm = performance.now();
  await engines.neural.synthesize(sentences[1]!, { language });
  const warmMs = performance.now() - warm;
  await engines.espeak.synthesize(sentences[1]!, { language });
  const voice = engines.neural.voices(language)[0]?.voice_name;
  console.log(
    `${factory.id} vs eSpeak NG, ${language} (${voice}: model load ${loadMs.toFixed(0)} ms, first call ${warmMs.toFixed(0)} ms):`,
  );
  const paragraph = sentences.slice(0, 3).join(language.startsWith('ja') ? '' : ' ');
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of ['neural', 'espeak'] as const) {
      for (const text of sentences) {
        const t0 = performance.now();
        const r = await engines[name].synthesize(text, { language });
        rtf[name]!.push((performance.now() - t0) / r.durationMs);
      }
      const t0 = performance.now();
      for await (const _chunk of synthesisStream(engines[name], paragraph, { language })) {
        first[name]!.push(performance.now() - t0);
        break;
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const name of ['neural', 'espeak'] as const)
    console.log(
      `  ${name.padEnd(7)} real-time factor median ${median(rtf[name]!).toFixed(3)}; first audio of a 3-sentence stream: ${stats(first[name]!)}`,
    );
  console.log(
    `  neural / eSpeak: real-time factor x${(median(rtf.neural!) / median(rtf.espeak!)).toFixed(1)}, first audio x${(median(first.neural!) / median(first.espeak!)).toFixed(1)}`,
  );
  await engines.neural.close?.();
  await engines.espeak.close?.();
}

async function main(): Promise<void> {
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (2 cores shared)`,
  );
  const only = process.argv[2];
  if (!only || only === 'encoder') await encoderBench();
  if (!only || only === 'sse') await endToEndBench();
  if (!only || only === 'english') await neuralBench(sherpaTtsFactory, 'en-US', SENTENCES);
  if (!only || only === 'japanese') await neuralBench(kokoroTtsFactory, 'ja-JP', JA_SENTENCES);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

await main();
