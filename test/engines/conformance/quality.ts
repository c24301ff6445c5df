/**
 * Quality limits of the conformance suites, per engine kind and engine id. Recognizers and
 * translators are judged by word error rate against a reference (word-level edit distance
 * over reference length); TTS by the WER of its speech recognized back by PocketSphinx (the
 * character error rate of Japanese recognized back by Whisper);
 * summarizers by the share of key terms kept; language identifiers by accuracy. An engine
 * not listed gets its kind's default, so a new engine is judged with no new test code;
 * list it here only when it is known to be better (a tighter limit) or worse.
 *
 * Remote engines are measured through the local OpenAI-compatible server, which answers
 * from the built-in engines, so their limits are the built-in ones.
 */
import type { EngineKind } from '../../../src/engines/types.js';

type Limits = { default: number } & Record<string, number>;

/** Highest word error rate on jfk (streaming and file recognizers), or on the reference translations. */
export const MAX_WER: Partial<Record<EngineKind, Limits>> = {
  // Measured 0.35-0.45 for PocketSphinx on jfk; Whisper-class engines score under 0.1.
  'file-stt': { default: 0.6, 'neural/sherpa-offline': 0.2 },
  'streaming-stt': { default: 0.6, 'neural/sherpa-streaming': 0.25 },
  // Over the reference sentences of the pairs an engine serves (Apertium, OpenCC); an LLM translator is listed when measured.
  translator: { default: 0.5 },
  // eSpeak's English recognized back by PocketSphinx: measured 0.06 on the suite's two sentences.
  // Japanese (neural/kokoro-tts) is scored by character error rate, recognized back by Whisper base.
  tts: { default: 0.35 },
};

/** Lowest share of the key terms a summary keeps. */
export const MIN_KEY_TERMS: Limits = { default: 0.5 };

/** Lowest share of the reference sentences whose language is identified (top guess). */
export const MIN_LANGUAGE_ACCURACY: Limits = { default: 0.8 };

export function limit(table: Limits | undefined, id: string): number {
  if (!table) throw new Error('no quality table');
  return table[id] ?? table.default;
}

/**
 * Contract checks an engine is known to fail today, with why: the check runs as `it.fails`,
 * so it turns red (and must be removed from here) the day the engine is fixed.
 */
export const KNOWN_VIOLATIONS: Record<string, string> = {};

export function knownViolation(kind: EngineKind, id: string, check: string): string | undefined {
  return KNOWN_VIOLATIONS[`${kind} ${id} ${check}`];
}

/** Lowest share of speech time given to the right speaker (stereo_diarization mixed to mono). */
export const MIN_DIARIZATION_ACCURACY: Limits = { default: 0.85 };
