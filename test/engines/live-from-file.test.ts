import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { decodeToPcm } from '../../src/engines/audio/ffmpeg.js';
import { pocketsphinxFileFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { sileroVadFactory } from '../../src/engines/builtin/silero-vad.js';
import { EngineError } from '../../src/engines/errors.js';
import { wordErrorRate } from '../../src/engines/quality/wer.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { createOpenAiTranscription, openAiTranscriptionFactory } from '../../src/engines/remote/openai-transcription.js';
import { liveFromFileFactory } from '../../src/engines/streaming/factory.js';
import { agreedPrefixLength, continuationIndex, StreamingOverFile } from '../../src/engines/streaming/over-file.js';
import type { FileRecognizer, PcmAudio, SttResult, VoiceActivityDetector } from '../../src/engines/types.js';
import { haveSharedAudio, JFK, JFK_TEXT } from '../support/audio.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';

const ctx = { config: { engines: { pocketsphinxDecoders: 2, pocketsphinxStreamLookahead: 0 } } } as never;

function int16(samples: Float32Array): Int16Array {
  return Int16Array.from(samples, (s) => Math.max(-32768, Math.min(32767, Math.round(s * 32767))));
}

describe('agreedPrefixLength', () => {
  it('counts the leading words two passes share, ignoring case and punctuation', () => {
    expect(agreedPrefixLength(['And', 'so', 'my'], ['and', 'so,', 'my', 'fellow'])).toBe(3);
    expect(agreedPrefixLength(['ask', 'not'], ['ask', 'what'])).toBe(1);
    expect(agreedPrefixLength([], ['x'])).toBe(0);
  });
});

describe('continuationIndex', () => {
  const w = (s: string) => s.split(' ');
  it('finds where a pass goes on after the stable words, even when it spells one of them differently', () => {
    expect(continuationIndex([], w('and so my'))).toBe(0);
    expect(continuationIndex(w('And Mr. John Dashwood'), w('and Mr. John Dashwood had then'))).toBe(4);
    // "Dashwood" written apart: the pass still continues after it, at "had".
    expect(continuationIndex(w('And Mr. John Dashwood'), w('And Mr. John Dash wood had then'))).toBe(5);
    expect(continuationIndex(w('He was not an ill-disposed'), w('He was not an ill-sposed young man'))).toBe(5);
    // A pass cut short (a loop trimmed) holds the stable words up to its end.
    expect(continuationIndex(w('He was not an'), w('He was not'))).toBe(3);
    // Another text altogether: no continuation.
    expect(continuationIndex(w('He was not an ill-disposed'), w('Pineapple'))).toBeNull();
  });
});

describe.skipIf(!haveSharedAudio())(
  'live captions from a remote file recognizer (local OpenAI-compatible server, PocketSphinx behind it)',
  () => {
    let server: OpenAiServer;
    let remote: FileRecognizer;
    let vad: VoiceActivityDetector;
    let jfk: PcmAudio;
    beforeAll(async () => {
      server = await startOpenAiServer();
      server.recognizer = (await pocketsphinxFileFactory.create(ctx)) as FileRecognizer;
      vad = (await sileroVadFactory.create(ctx)) as VoiceActivityDetector;
      remote = createOpenAiTranscription({ baseUrl: server.url, model: 'whisper-1', timeoutMs: 60_000, retries: 0 });
      jfk = await decodeToPcm(JFK, { ffmpegPath: 'ffmpeg' });
    }, 60_000);
    afterAll(async () => {
      await server?.close();
    });

    /**
     * Streams jfk in 100 ms chunks; returns the results in arrival order. The next chunk waits
     * while the server is transcribing, so the passes an utterance gets do not depend on how
     * busy this machine is (interim latency at real-time pace is measured by bench:realtime).
     */
    async function stream(recognizer: StreamingOverFile, seconds = 11): Promise<{ results: SttResult[]; errors: Error[] }> {
      const results: SttResult[] = [];
      const errors: Error[] = [];
      const s = await recognizer.open({
        language: 'en-US',
        interimResults: true,
        onResult: (r) => results.push(r),
        onError: (e) => errors.push(e),
      });
      const pcm = int16(jfk.samples.subarray(0, seconds * 16000));
      for (let i = 0; i < pcm.length; i += 1600) {
        s.write(pcm.subarray(i, i + 1600));
        do await new Promise((r) => setTimeout(r, 10));
        while (server.transcriptionsInFlight > 0);
      }
      await s.end();
      return { results, errors };
    }

    it('sends growing stable-prefix interims before each final; finals match the file result; at most a draft and a final in flight', async () => {
      const fileText = (await remote.transcribe(jfk, { language: 'en-US' })).text;
      expect(wordErrorRate(JFK_TEXT, fileText)).toBeLessThan(0.6);
      server.maxTranscriptionsInFlight = 0;
      const before = server.requests.length;
      const live = new StreamingOverFile(remote, vad, { intervalMs: 1000, maxUtteranceMs: 15_000 });
      const { results, errors } = await stream(live);
      expect(errors).toEqual([]);
      const finals = results.filter((r) => r.isFinal);
      const interims = results.filter((r) => !r.isFinal);
      expect(finals.length).toBeGreaterThanOrEqual(1);
      expect(interims.length).toBeGreaterThanOrEqual(1);
      // Interims of one utterance only grow (committed words are never taken back) and come before its final.
      let last: SttResult | undefined;
      for (const r of results) {
        if (last && !last.isFinal) {
          expect(r.startMs).toBe(last.startMs);
          if (!r.isFinal) expect(r.text.startsWith(last.text)).toBe(true);
        }
        if (last?.isFinal) expect(r.startMs).toBeGreaterThanOrEqual(last.endMs);
        expect(r.endMs).toBeGreaterThan(r.startMs);
        last = r;
      }
      expect(last?.isFinal).toBe(true);
      const liveText = finals.map((f) => f.text).join(' ');
      expect(wordErrorRate(fileText, liveText)).toBeLessThan(0.35);
      expect(liveText).toContain('country');
      // Word times on the stream's timeline, inside their utterance.
      for (const f of finals) for (const w of f.words ?? []) expect(w.startMs).toBeGreaterThanOrEqual(f.startMs - 1);
      // Real re-transcriptions happened (more requests than finals); never more than one draft
      // and the final asked for beside it (when its utterance ends) at once.
      expect(server.requests.length - before).toBeGreaterThan(finals.length);
      expect(server.maxTranscriptionsInFlight).toBeGreaterThanOrEqual(1);
      expect(server.maxTranscriptionsInFlight).toBeLessThanOrEqual(2);
    }, 120_000);

    it('loud speech the VAD misses (jfk\'s shouted "ask not", 3.3-4.2 s) is sent to the recognizer as it is said', async () => {
      // PocketSphinx hears nothing in it either, so what shows is when passes are asked for:
      // by the energy gate while "ask not" is said; by the VAD alone not before "what" (5.4 s).
      const passesWhile = async (energyGate: false | undefined) => {
        let written = 0;
        const at: number[] = [];
        const traced: FileRecognizer = {
          ...remote,
          transcribe: (audio, options) => {
            at.push(written / 16);
            return remote.transcribe(audio, options);
          },
        };
        const live = new StreamingOverFile(traced, vad, { intervalMs: 300, maxUtteranceMs: 15_000, energyGate });
        const s = await live.open({ language: 'en-US', interimResults: true, onResult: () => {}, onError: () => {} });
        const pcm = int16(jfk.samples.subarray(0, 6 * 16000));
        for (; written < pcm.length; written += 1600) {
          s.write(pcm.subarray(written, written + 1600));
          do await new Promise((r) => setTimeout(r, 10));
          while (server.transcriptionsInFlight > 0);
        }
        await s.end();
        return at.filter((ms) => ms > 3300 && ms < 5000).length;
      };
      expect(await passesWhile(undefined)).toBeGreaterThanOrEqual(3);
      expect(await passesWhile(false)).toBe(0);
    }, 120_000);

    it('asks for no pass over a sliver the stream ends in (jfk twice: the energy gate opens an utterance in its last 148 ms)', async () => {
      // Whisper invents text for such input (6.9 s of CPU in its 30 s window for 0.15 s, ending empty).
      const lengths: number[] = [];
      const traced: FileRecognizer = {
        ...remote,
        transcribe: (audio, options) => {
          lengths.push(audio.samples.length / 16);
          return remote.transcribe(audio, options);
        },
      };
      const live = new StreamingOverFile(traced, vad, { intervalMs: 5000, maxUtteranceMs: 15_000, lookbackMs: 3000 });
      const s = await live.open({ language: 'en-US', interimResults: true, onResult: () => {}, onError: () => {} });
      const once = int16(jfk.samples);
      for (const pcm of [once, once]) for (let i = 0; i < pcm.length; i += 1600) s.write(pcm.subarray(i, i + 1600));
      await s.end();
      expect(lengths.length).toBeGreaterThan(3);
      expect(Math.min(...lengths)).toBeGreaterThanOrEqual(250);
    }, 60_000);

    it('bounds the audio of each pass: speech longer than maxUtteranceMs is finalized in pieces', async () => {
      const live = new StreamingOverFile(remote, vad, { intervalMs: 2000, maxUtteranceMs: 2000 });
      const { results } = await stream(live, 5);
      const finals = results.filter((r) => r.isFinal);
      for (const f of finals) expect(f.endMs - f.startMs).toBeLessThanOrEqual(2000);
      expect(finals.map((f) => f.text).join(' ')).toMatch(/\w/);
    }, 60_000);

    /** A recognizer whose passes wait for the test: `hold` says which pass waits for what. */
    function heldRecognizer(hold: (options: { draft?: boolean }) => Promise<void> | null) {
      const calls: { draft: boolean; stream?: string; signal?: AbortSignal }[] = [];
      const recognizer: FileRecognizer = {
        ...remote,
        transcribe: async (audio, options) => {
          calls.push({
            draft: options.draft === true,
            ...(options.stream ? { stream: options.stream } : {}),
            ...(options.signal ? { signal: options.signal } : {}),
          });
          const wait = hold(options);
          if (wait) await wait;
          options.signal?.throwIfAborted();
          return remote.transcribe(audio, options);
        },
      };
      return { recognizer, calls };
    }

    function gate(): { wait: Promise<void>; open: () => void } {
      let open: () => void = () => {};
      const wait = new Promise<void>((r) => {
        open = r;
      });
      return { wait, open };
    }

    /** "And so my fellow Americans" (0-2.6 s), then 2 s of silence: the VAD ends the utterance. */
    async function utteranceWhilePassHeld(recognizer: FileRecognizer) {
      const live = new StreamingOverFile(recognizer, vad, {
        intervalMs: 2000,
        maxUtteranceMs: 15_000,
        tentativeTail: true,
        tailGuardMs: 0,
        energyGate: false,
      });
      const results: SttResult[] = [];
      const errors: Error[] = [];
      const s = await live.open({
        language: 'en-US',
        interimResults: true,
        onResult: (r) => results.push(r),
        onError: (e) => errors.push(e),
      });
      const pcm = new Int16Array(16000 * 4.6);
      pcm.set(int16(jfk.samples.subarray(0, 16000 * 2.6)));
      for (let i = 0; i < pcm.length; i += 1600) s.write(pcm.subarray(i, i + 1600));
      return { s, results, errors };
    }

    it('an interim pass still running when its utterance ends: its final is asked for at once, and the draft, back first, is shown first', async () => {
      // The first draft is held until the utterance has ended (as when a loaded engine host is
      // slow), and the final until the draft is back: the draft's words are shown, then the final.
      const draftGate = gate();
      const finalGate = gate();
      let drafts = 0;
      const { recognizer, calls } = heldRecognizer((o) => (o.draft ? (drafts++ === 0 ? draftGate.wait : null) : finalGate.wait));
      const { s, results, errors } = await utteranceWhilePassHeld(recognizer);
      await new Promise((r) => setTimeout(r, 100));
      expect(results).toEqual([]);
      // The final was asked for while the draft was held (it does not wait for the draft's turn),
      // both under the stream's one id.
      expect(calls.map((c) => c.draft).sort()).toEqual([false, true]);
      expect(calls[0]!.stream).toMatch(/\w/);
      expect(calls[1]!.stream).toBe(calls[0]!.stream);
      const draft = calls.find((c) => c.draft)!;
      draftGate.open();
      await vi.waitFor(() => expect(results.length).toBe(1), { timeout: 20_000 });
      finalGate.open();
      await s.end();
      expect(errors).toEqual([]);
      expect(results.map((r) => r.isFinal)).toEqual([false, true]);
      const [interim, final] = results;
      expect(final!.endMs).toBeLessThan(4000); // the VAD ended it while the pass was held, not end()
      expect(interim!.text).toMatch(/\w/);
      expect(interim!.startMs).toBe(final!.startMs);
      expect(draft.signal?.aborted).toBe(false);
    }, 60_000);

    it('a final back before the draft in flight is shown at once; that draft is cancelled and shows nothing', async () => {
      const draftGate = gate();
      const { recognizer, calls } = heldRecognizer((o) => (o.draft ? draftGate.wait : null));
      const { s, results, errors } = await utteranceWhilePassHeld(recognizer);
      await vi.waitFor(() => expect(results.map((r) => r.isFinal)).toEqual([true]), { timeout: 20_000 });
      // The held draft's request is cancelled (an engine host skips it if not decoded yet).
      const drafts = calls.filter((c) => c.draft);
      expect(drafts.length).toBe(1);
      expect(drafts[0]!.signal?.aborted).toBe(true);
      draftGate.open();
      await s.end();
      expect(errors).toEqual([]);
      expect(results.map((r) => r.isFinal)).toEqual([true]);
      expect(results[0]!.text).toMatch(/\w/);
    }, 60_000);

    it('a recognizer that throws at once fails the pass, not the write that ended the utterance', async () => {
      const throwing: FileRecognizer = {
        ...remote,
        transcribe: () => {
          throw new Error('recognizer refused synchronously');
        },
      };
      const { s, results, errors } = await utteranceWhilePassHeld(throwing);
      await s.end();
      expect(results).toEqual([]);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.every((e) => e instanceof EngineError && e.code === 'stt_connection_lost')).toBe(true);
    }, 60_000);

    it('a failing pass is reported as a typed EngineError; abort is immediate and idempotent', async () => {
      const failing = createOpenAiTranscription({ baseUrl: server.url, model: 'whisper-1', timeoutMs: 20_000, retries: 0 });
      const live = new StreamingOverFile(failing, vad, { intervalMs: 500, maxUtteranceMs: 15_000 });
      const results: SttResult[] = [];
      const errors: Error[] = [];
      const s = await live.open({ language: 'en', interimResults: true, onResult: (r) => results.push(r), onError: (e) => errors.push(e) });
      server.script.push({ status: 503 });
      const pcm = int16(jfk.samples.subarray(0, 16000 * 3));
      s.write(pcm);
      await s.end();
      expect(errors[0]).toBeInstanceOf(EngineError);
      expect((errors[0] as EngineError).code).toBe('stt_connection_lost');
      const s2 = await live.open({
        language: 'en',
        interimResults: true,
        onResult: (r) => results.push(r),
        onError: (e) => errors.push(e),
      });
      const count = results.length;
      s2.write(int16(jfk.samples));
      s2.abort();
      s2.abort();
      s2.write(int16(jfk.samples));
      await s2.end();
      await s2.end();
      expect(results.length).toBe(count);
    }, 60_000);

    it('is configured per engine: the remote recognizer gets a streaming face by default, others when listed', async () => {
      const logger = pino({ level: 'silent' });
      const make = (env: Record<string, string>) =>
        EngineRegistry.create({ config: loadConfig(env), modelsDir: '/nowhere', logger }, [
          openAiTranscriptionFactory,
          pocketsphinxFileFactory,
          sileroVadFactory,
          liveFromFileFactory,
        ]);
      const faces = (r: EngineRegistry) => r.enginesOf('streaming-stt').map((e) => [e.id, e.tier]);
      const remoteOnly = await make({ PARLEY_REMOTE_STT_URL: server.url });
      expect(faces(remoteOnly)).toEqual([['remote/openai-transcription', 'remote']]);
      expect(remoteOnly.enginesOf('streaming-stt')[0]?.capabilities).toMatchObject({
        streaming: true,
        interimResults: true,
        languages: ['*'],
      });
      // The face wraps the loaded file recognizer (one instance), not a second copy.
      expect((remoteOnly.enginesOf('streaming-stt')[0] as StreamingOverFile).file).toBe(remoteOnly.enginesOf('file-stt')[0]);
      const both = await make({
        PARLEY_REMOTE_STT_URL: server.url,
        PARLEY_LIVE_FROM_FILE_ENGINES: 'remote/openai-transcription,builtin/pocketsphinx',
      });
      expect(faces(both)).toEqual([
        ['remote/openai-transcription', 'remote'],
        ['builtin/pocketsphinx', 'builtin'],
      ]);
      const none = await make({ PARLEY_LIVE_FROM_FILE_ENGINES: 'remote/openai-transcription' });
      expect(none.status.find((s) => s.id === 'live-from-file')).toMatchObject({
        available: false,
        reason: expect.stringContaining('PARLEY_LIVE_FROM_FILE_ENGINES'),
      });
      await remoteOnly.close();
    }, 60_000);
  },
);
