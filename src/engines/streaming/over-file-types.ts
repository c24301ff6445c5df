/** The types of live captions from a file recognizer (over-file.ts): its options, and the state of an utterance. */
import type { DraftPass } from './draft-pass.js';
import type { EnergyGateOptions } from './energy-gate.js';
import type { InterimText } from './interim-text.js';

export interface OverFileOptions {
  /** New audio (ms) an utterance must gain before the next interim pass. */
  intervalMs: number;
  /** Longest utterance sent in one pass; longer speech is finalized in pieces of this size. */
  maxUtteranceMs: number;
  /** Audio kept before the VAD's speech start (its detection lags the first syllable). */
  paddingMs?: number;
  /**
   * How far before the VAD's speech start an utterance reaches back into audio the VAD called
   * silence (never before the previous utterance's end). The VAD misses some real speech
   * (silero at 0.5 misses jfk's "ask not", shouted over the crowd, even at 0.3); the
   * recognizer, which hears it, gets that audio with the next utterance instead of never.
   * Default: the padding.
   */
  lookbackMs?: number;
  /**
   * Interims show the latest pass's words after the agreed prefix too (a tentative tail), not
   * only the words two passes agree on: each word appears one pass sooner. The agreed prefix
   * never changes; the tail may be revised by the next pass. Words ending in the last
   * `tailGuardMs` of a pass's audio (possibly cut mid-word) are left out of the tail.
   */
  tentativeTail?: boolean;
  tailGuardMs?: number;
  /**
   * Loud sound far above the stream's noise floor opens an utterance too, where the VAD hears
   * none (energy-gate.ts: shouted speech the VAD misses); such an utterance ends when the
   * loudness does. false: the VAD alone.
   */
  energyGate?: (EnergyGateOptions & { closeAfterQuietMs?: number }) | false;
}

/** An utterance of a live stream, from its start to its final pass. */
export interface Utterance {
  startSample: number;
  /**
   * Who opened it: the VAD, or the energy gate where the VAD heard nothing.
   */
  openedBy: 'vad' | 'energy';
  /**
   * Whose end closes it: the VAD's once it hears speech in it, else the energy gate's (until
   * then its drafts are the main model's: a small draft model does not hear such speech either).
   */
  closedBy: 'vad' | 'energy';
  /** Set when the utterance is closed (its final is queued). */
  endSample?: number;
  /** Utterance length (samples) when the last interim pass started. */
  passedAt: number;
  /** Its interim text, from its draft passes. */
  interim: InterimText;
  interimsSent: number;
  /** The text of the last interim sent (a pass that changes nothing sends none). */
  lastInterim: string;
  /** Its latest draft pass (the one its final races, when that is still in flight). */
  draft?: DraftPass;
}
