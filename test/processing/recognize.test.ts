/**
 * Windowed recognition of a long recording: the same speech recognized whole and in short
 * windows (cut at the quietest moment) gives sentences in order, with times from the start of
 * the recording, and no speech lost at the cuts.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createFfmpegAudio } from '../../src/engines/audio/ffmpeg-audio.js';
import { pocketsphinxFileFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import type { EngineError } from '../../src/engines/errors.js';
import { wordErrorRate } from '../../src/engines/quality/wer.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import type { AnyEngine } from '../../src/engines/types.js';
import type { Glossary } from '../../src/glossary/index.js';
import { createLogger } from '../../src/platform/logging.js';
import { decodeToPcmFile, type PcmFile, quietestCutMs } from '../../src/processing/pcm-file.js';
import { recognizeIntoTask } from '../../src/processing/recognize.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK, SHARED_AUDIO } from '../support/audio.js';

// jfk three times with a second of silence between: 36 s.
const long = haveSharedAudio() ? convert(JFK, 'wav', ['-af', 'apad=pad_dur=1', '-ar', '16000', '-ac', '1']) : null;

describe.skipIf(!long)('recognition in windows', () => {
  let t: TestApp;
  let audio: PcmFile;
  let engines: EngineRegistry;
  const dir = mkdtempSync(join(tmpdir(), 'parley-windows-'));
  beforeAll(async () => {
    const three = convert(long!, 'wav', ['-filter_complex', 'aloop=loop=2:size=1e6']);
    audio = await decodeToPcmFile(createFfmpegAudio('ffmpeg'), three, join(dir, 'a.pcm'));
    const e = await pocketsphinxFileFactory.create({
      config: loadConfig({}),
      modelsDir: '/nowhere',
      logger: createLogger('silent'),
    } as never);
    engines = EngineRegistry.fromEngines([e as AnyEngine]);
    t = await startTestApp({ engines });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function sentences(windowMs: number, pcm: PcmFile = audio, glossary?: Glossary) {
    const store = t.app.deps.tasks.store;
    const task = await store.createTask({
      accountId: 'a',
      keyId: 'k',
      title: 'w',
      type: 'transcribe',
      typeSource: 'import',
      recognitionMode: 'single',
      processingStatus: 'processing',
    });
    const progress: number[] = [];
    await recognizeIntoTask({ engines, tasks: store, logger: createLogger('silent') }, task.taskId, pcm, {
      languages: ['en-US'],
      recognitionMode: 'single',
      windowMs,
      glossary,
      onProgress: (f) => progress.push(f),
    });
    return { list: await store.listSentences(task.taskId), progress };
  }

  it('cuts at a quiet moment and keeps every sentence in order with recording times', async () => {
    expect(audio.durationMs).toBeGreaterThan(35_000);
    const whole = await sentences(10 * 60_000);
    const windowed = await sentences(9_000);
    // No speech lost at the cuts: every repetition is there, and the words barely differ (the
    // recognizer adapts to what it heard before, so a window start decodes a little differently).
    const text = (l: { origin: string }[]) => l.map((s) => s.origin).join(' ');
    expect(text(whole.list).split('fellow')).toHaveLength(4);
    expect(text(windowed.list).split('fellow')).toHaveLength(4);
    expect(wordErrorRate(text(whole.list), text(windowed.list))).toBeLessThan(0.3);
    const starts = windowed.list.map((s) => s.startMs);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(windowed.list.at(-1)!.endMs).toBeGreaterThan(30_000);
    expect(windowed.list.at(-1)!.endMs).toBeLessThanOrEqual(audio.durationMs + 50);
    expect(windowed.progress.at(-1)).toBeLessThanOrEqual(1);
    expect(windowed.progress).toEqual([...windowed.progress].sort((a, b) => a - b));
  }, 300_000);

  it('sentences are readable: a capital at the start, a full stop at the end', async () => {
    const { list } = await sentences(10 * 60_000);
    for (const s of list) expect(s.origin).toMatch(/^[A-Z].*\.$/);
  }, 300_000);

  it("an import's terminology reaches recognition, in its written form, for that import only", async () => {
    // 29.5-35 s of multiple_keywords.wav: "... Picovoice, pineapple".
    const clip = convert(join(SHARED_AUDIO, 'multiple_keywords.wav'), 'wav', ['-ss', '29.5', '-t', '5.5', '-ar', '16000', '-ac', '1']);
    const pcm = await decodeToPcmFile(createFfmpegAudio('ffmpeg'), clip, join(dir, 'k.pcm'));
    const glossary: Glossary = { terminology: { 'en-US': [{ term: 'Picovoice' }] }, fuzzyCorrection: {}, translationDict: {} };
    const text = async (g?: Glossary) => (await sentences(10 * 60_000, pcm, g)).list.map((s) => s.origin).join(' ');
    expect(await text(glossary)).toContain('Picovoice');
    expect((await text()).toLowerCase()).not.toContain('picovoice');
  }, 300_000);

  it('refuses by need with the spec code and what is missing: no diarizer here, no recognizer for de-DE', async () => {
    const store = t.app.deps.tasks.store;
    const task = await store.createTask({
      accountId: 'a',
      keyId: 'k',
      title: 'refused',
      type: 'transcribe',
      typeSource: 'import',
      recognitionMode: 'multi_speaker',
      processingStatus: 'processing',
    });
    const run = (languages: string[], recognitionMode: 'single' | 'multi_speaker') =>
      recognizeIntoTask({ engines, tasks: store, logger: createLogger('silent') }, task.taskId, audio, {
        languages,
        recognitionMode,
      }).catch((e: unknown) => e as EngineError);
    expect(await run(['en-US'], 'multi_speaker')).toMatchObject({
      code: 'diarization_unavailable',
      message: 'no diarizer is available here',
    });
    expect(await run(['de-DE'], 'single')).toMatchObject({ code: 'stt_init_failed', message: 'no file recognizer here serves de-DE' });
    expect(await store.listSentences(task.taskId)).toEqual([]);
  });

  it('quietestCutMs finds the silence', () => {
    const samples = new Float32Array(16_000 * 3).map((_, i) => Math.sin(i / 5) * (i > 16_000 * 2 && i < 16_000 * 2.3 ? 0 : 0.5));
    const cut = quietestCutMs({ sampleRate: 16_000, samples }, 1000);
    expect(cut).toBeGreaterThanOrEqual(2000);
    expect(cut).toBeLessThanOrEqual(2300);
  });
});
