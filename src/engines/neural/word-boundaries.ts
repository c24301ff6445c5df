/**
 * Word boundaries for synthesizers that report none (OpenAI /audio/speech, sherpa-onnx
 * VITS/Piper/Kokoro). Two estimates, documented as such (good for highlighting the word being
 * spoken, not for alignment):
 * - `estimateBoundaries`: each word gets a share of the audio proportional to its length in
 *   characters, pauses after punctuation weighted a little more;
 * - `guidedBoundaries`: eSpeak NG speaks the same text (a few ms) and its own word events,
 *   scaled to the neural audio's length, place the words. Piper phonemizes with eSpeak NG, so
 *   the two agree on which words are long and where the pauses fall (bench:tts measures both
 *   against Whisper's word times). Falls back to the character estimate without libespeak-ng.
 */
import { wordBoundaries } from '../builtin/espeak.js';
import { espeakSynthesize } from '../builtin/espeak-native.js';
import type { WordBoundary } from '../types.js';

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’-]*|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

export function estimateBoundaries(text: string, durationMs: number): WordBoundary[] {
  const words = [...text.matchAll(WORD)].map((m) => ({ text: m[0], offset: m.index ?? 0 }));
  if (!words.length || durationMs <= 0) return [];
  // Weight = characters, plus a pause weight when punctuation follows the word.
  const weights = words.map((w, i) => {
    const next = words[i + 1]?.offset ?? text.length;
    const gap = text.slice(w.offset + w.text.length, next);
    return w.text.length + (/[.!?。！？]/.test(gap) ? 3 : /[,;:，、；]/.test(gap) ? 1.5 : 0.5);
  });
  const total = weights.reduce((a, b) => a + b, 0);
  const out: WordBoundary[] = [];
  let at = 0;
  words.forEach((w, i) => {
    const share = (durationMs * (weights[i] ?? 0)) / total;
    const speak = (share * w.text.length) / (weights[i] ?? 1);
    out.push({
      offset_ms: Math.round(at),
      duration_ms: Math.max(1, Math.round(speak)),
      text: w.text,
      text_offset: w.offset,
      word_length: w.text.length,
    });
    at += share;
  });
  return out;
}

/** eSpeak NG's word times for `text` in `espeakVoice`, stretched to `durationMs`; the character estimate when eSpeak cannot run. */
export function guidedBoundaries(text: string, durationMs: number, espeakVoice: string): WordBoundary[] {
  if (durationMs <= 0 || !text.trim()) return [];
  let guide: ReturnType<typeof espeakSynthesize>;
  try {
    guide = espeakSynthesize(text, espeakVoice, 175);
  } catch {
    return estimateBoundaries(text, durationMs);
  }
  const guideMs = (guide.pcm.length / guide.sampleRate) * 1000;
  const words = wordBoundaries(text, guide.words, guideMs);
  if (!words.length || guideMs <= 0) return estimateBoundaries(text, durationMs);
  const scale = durationMs / guideMs;
  return words.map((b) => ({
    ...b,
    offset_ms: Math.min(durationMs, Math.round(b.offset_ms * scale)),
    duration_ms: Math.max(1, Math.round(b.duration_ms * scale)),
  }));
}
