/**
 * Word boundaries for synthesizers that report none (OpenAI /audio/speech, sherpa-onnx
 * VITS/Piper/Kokoro): each word gets a share of the audio proportional to its length in
 * characters, pauses after punctuation weighted a little more. An estimate, documented as
 * such: good enough for highlighting the current word, not for alignment.
 */
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
