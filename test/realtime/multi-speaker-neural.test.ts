/**
 * The neural live diarizer as the default of multi_speaker live sessions where its models are
 * installed: the catalogue's registry picks it for live labelling (the classic one without the
 * models), and a real WebSocket session on dialogue A of bench:diarizer (JFK and a LibriVox
 * reader, phrase by phrase; PocketSphinx recognizes) labels every final with its own voice.
 * Skips without the models; fails instead when PARLEY_TEST_REQUIRE_ENGINES names
 * neural/sherpa-diarization.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordings } from '../../bench/diarizer-accuracy.js';
import { loadConfig } from '../../src/config.js';
import { classicDiarizerFactory } from '../../src/engines/builtin/diarizer/index.js';
import { sileroVadFactory } from '../../src/engines/builtin/silero-vad.js';
import { CATALOG } from '../../src/engines/catalog.js';
import { modelsDirFrom } from '../../src/engines/models/paths.js';
import { sherpaDiarizationFactory } from '../../src/engines/neural/sherpa-diarization.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { liveDiarizer } from '../../src/engines/streaming/labels.js';
import type { AnyEngine, Diarizer, SpeechSegment, VoiceActivityDetector } from '../../src/engines/types.js';
import { requiredEngines } from '../engines/conformance/engines.js';
import type { TestApp } from '../support/app.js';
import { haveSharedAudio, LIBRIVOX_DIR } from '../support/audio.js';
import { connect, liveEngines, startLiveApp, startSession, streamPcm, ticketAndKey } from './support.js';

const config = loadConfig({ PARLEY_DATA_DIR: process.env.PARLEY_DATA_DIR, PARLEY_MODELS_DIR: process.env.PARLEY_MODELS_DIR });
const ctx = { config, modelsDir: modelsDirFrom(config), logger: pino({ level: 'silent' }), loaded: [] };
const neural = await sherpaDiarizationFactory.create(ctx);
const missing = 'unavailable' in neural ? neural.unavailable : null;
const required = requiredEngines().includes('neural/sherpa-diarization');
const haveAudio = haveSharedAudio() && existsSync(LIBRIVOX_DIR);

if (missing && required)
  it('neural/sherpa-diarization is available (required by PARLEY_TEST_REQUIRE_ENGINES)', () => {
    throw new Error(`neural/sherpa-diarization is not available: ${missing}`);
  });

describe.skipIf(!!missing)('multi_speaker live sessions on the neural diarizer (the default where installed)', () => {
  it('the catalogue picks the neural diarizer for live labelling, the classic one without its models', async () => {
    const kinds = new Set(['diarizer'] as const);
    const installed = await EngineRegistry.create(ctx, CATALOG, kinds);
    expect(liveDiarizer(installed)?.id).toBe('neural/sherpa-diarization');
    const none = await EngineRegistry.create({ ...ctx, modelsDir: mkdtempSync(join(tmpdir(), 'parley-nomodels-')) }, CATALOG, kinds);
    expect(liveDiarizer(none)?.id).toBe('builtin/classic-diarizer');
    await Promise.all([installed.close(), none.close()]);
  }, 60_000);

  describe.skipIf(!haveAudio)('over a WebSocket', () => {
    let t: TestApp;
    let audio: Buffer;
    let reference: SpeechSegment[][];
    beforeAll(async () => {
      const vad = (await sileroVadFactory.create(ctx as never)) as VoiceActivityDetector;
      const a = (await recordings(vad)).find((r) => r.name.startsWith('dialogue A'))!;
      reference = a.reference;
      const pcm = Int16Array.from(a.audio.samples, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32767))));
      audio = Buffer.concat([Buffer.from(pcm.buffer), Buffer.alloc(64_000)]);
      const base = await liveEngines([classicDiarizerFactory]);
      // Catalogue order: the neural diarizer before the classic one.
      const engines = [...(['streaming-stt', 'translator', 'summarizer'] as const).flatMap((k) => base.enginesOf(k) as AnyEngine[])];
      t = await startLiveApp('sqlite', {
        engines: EngineRegistry.fromEngines([...engines, neural as Diarizer, ...(base.enginesOf('diarizer') as AnyEngine[])]),
      });
    }, 120_000);
    afterAll(() => t?.close());

    it('dialogue A: two speakers, JFK\'s sentences "1" and the reader\'s "2", in the order spoken', async () => {
      const { ticket } = await ticketAndKey(t);
      const cl = await connect(t, [`ticket.${ticket}`]);
      await startSession(cl, { recognition_mode: 'multi_speaker' });
      await streamPcm(cl, audio, 2);
      const speechEnd = Math.max(...reference.flat().map((s) => s.endMs));
      const finals = () => cl.messages.filter((m) => m.data?.action === 'result' && m.data.origin.is_final).map((m) => m.data.origin);
      const until = Date.now() + 90_000;
      while (!finals().some((o) => o.end_ms >= speechEnd - 500) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      const origins = finals();
      expect(new Set(origins.map((o) => o.speaker_id))).toEqual(new Set(['1', '2']));
      // Six phrases alternate: the finals change speaker at least three times.
      expect(origins.filter((o, i) => i > 0 && o.speaker_id !== origins[i - 1].speaker_id).length).toBeGreaterThanOrEqual(3);
      // Each final's audio (from the previous final's end to its own) is mostly one reference voice: that voice's speaker.
      const voiceOf = (from: number, to: number) => {
        const time = reference.map((segs) => segs.reduce((n, s) => n + Math.max(0, Math.min(to, s.endMs) - Math.max(from, s.startMs)), 0));
        return time[0]! >= time[1]! ? '1' : '2';
      };
      const spans = origins.map((o, i) => [origins[i - 1]?.end_ms ?? 0, o.end_ms] as const);
      expect(
        origins.map((o) => o.speaker_id),
        JSON.stringify(origins),
      ).toEqual(spans.map(([from, to]) => voiceOf(from, to)));
      cl.ws.close();
    }, 180_000);
  });
});
