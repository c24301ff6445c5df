/**
 * 'remote/openai-speech': POST /audio/speech for MP3. The API reports no word timings, so
 * boundaries are estimated from text proportions (see neural/word-boundaries.ts); the
 * duration is measured by decoding the MP3 with ffmpeg.
 */
import { decodeToPcm } from '../audio/ffmpeg.js';
import { estimateBoundaries } from '../neural/word-boundaries.js';
import type { EngineFactory } from '../registry.js';
import type { Synthesizer, Voice } from '../types.js';
import { NOT_CONFIGURED, remoteEndpoint } from './endpoints.js';
import { ttsError } from './errors.js';
import { bodyFailure, type RemoteEndpoint, RemoteFailure, remoteFetch } from './http.js';

export function createOpenAiSpeech(ep: RemoteEndpoint, voiceNames: string[], ffmpegPath: string, id = 'remote/openai-speech'): Synthesizer {
  // The API's voices speak every language the model knows; gender is not reported, so voices alternate.
  const voices = (language: string): Voice[] =>
    voiceNames.map((v, i) => ({ voice_name: v, display_name: v, gender: i % 2 ? 'Male' : 'Female', is_default: i === 0, language }));
  return {
    id,
    kind: 'tts',
    tier: 'remote',
    capabilities: { languages: ['*'], wordTimes: true },
    voices,
    async synthesize(text, options) {
      const speed = Math.min(2, Math.max(0.5, options.speakingRate ?? 1));
      const voice = options.voice ?? voiceNames[0] ?? 'alloy';
      let mp3: Buffer;
      try {
        const res = await remoteFetch(ep, {
          method: 'POST',
          path: '/audio/speech',
          headers: { 'content-type': 'application/json' },
          body: () => JSON.stringify({ model: ep.model, input: text, voice, response_format: 'mp3', speed }),
          signal: options.signal,
        });
        mp3 = Buffer.from(
          await res.arrayBuffer().catch((err: unknown) => {
            throw bodyFailure(err, ep, options.signal);
          }),
        );
      } catch (err) {
        throw ttsError(err, id);
      }
      const pcm = await decodeToPcm(mp3, { ffmpegPath }).catch((err: unknown) => {
        throw ttsError(new RemoteFailure('protocol', `the server did not return decodable MP3: ${String(err)}`), id);
      });
      const durationMs = Math.round((pcm.samples.length / pcm.sampleRate) * 1000);
      return { mp3, durationMs, boundaries: estimateBoundaries(text, durationMs) };
    },
  };
}

export const openAiSpeechFactory: EngineFactory = {
  id: 'remote/openai-speech',
  kind: 'tts',
  tier: 'remote',
  summary: 'OpenAI-compatible /audio/speech (PARLEY_REMOTE_TTS_URL); MP3, word boundaries estimated.',
  async create(ctx) {
    const ep = remoteEndpoint(ctx.config, 'tts');
    if (!ep) return { unavailable: NOT_CONFIGURED('PARLEY_REMOTE_TTS_URL') };
    return createOpenAiSpeech(ep, ctx.config.engines.remoteTtsVoices, ctx.config.engines.ffmpegPath);
  },
};
