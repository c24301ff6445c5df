/**
 * Readable text from a recognizer's words: what live results, imported transcripts, exports,
 * history and the translators see. Engines such as PocketSphinx give lowercase words without
 * punctuation; this adds, in order:
 * 1. punctuation from pauses (finals with word times only): a comma where the speaker
 *    paused at least COMMA_PAUSE_MS inside an utterance, a full stop at SENTENCE_PAUSE_MS;
 * 2. the caller's rewrite (the session's glossary: fuzzy correction, then terms in their
 *    written form), so glossary variants are matched on the plain words;
 * 3. a capital at the start of each sentence and English "I" ("i", "i'm", "i'll", ...);
 *    a word written with capitals inside (a glossary's "iPhone") is left as written;
 * 4. a full stop at the end of a final that has no end punctuation ("。" for Chinese and
 *    Japanese). An utterance ends where the speaker paused (the VAD endpoint), so a final
 *    is a sentence or a phrase. Questions are not detected.
 * Text that already has sentence punctuation (engines that write it) gets only steps 2-3.
 * Interims get steps 2-3: they change too often for punctuation to mean anything.
 */
import { baseLanguage } from '../../languages.js';
import type { Word } from '../types.js';

/** Pause (ms between one word's end and the next one's start) that makes a comma. */
export const COMMA_PAUSE_MS = 250;
/** Pause that ends a sentence inside one utterance (the VAD ends utterances at 400 ms of silence, so mainly long turns). */
export const SENTENCE_PAUSE_MS = 600;

const END_PUNCTUATION = /[.!?。！？…]["'”’)\]]*$/u;
const ANY_PUNCTUATION = /[.,!?;:。，！？；：]/u;
const CJK = new Set(['zh', 'ja', 'ko', 'yue']);

export interface RecognizedText {
  text: string;
  isFinal: boolean;
  words?: readonly Word[];
}

export interface ReadableOptions {
  /** Applied to the punctuated lowercase text, before capitals (the glossary). */
  rewrite?: (text: string) => string;
}

/** Words joined with commas and full stops where the speaker paused. */
export function punctuateByPauses(words: readonly Word[]): string {
  let out = '';
  words.forEach((w, i) => {
    const next = words[i + 1];
    out += w.text;
    if (!next) return;
    const pause = next.startMs - w.endMs;
    out += pause >= SENTENCE_PAUSE_MS ? '. ' : pause >= COMMA_PAUSE_MS ? ', ' : ' ';
  });
  return out;
}

/** Sentence-initial capitals, and "I" in English. Words with inner capitals stay as written. */
export function capitalize(text: string, language: string): string {
  const english = baseLanguage(language) === 'en';
  let out = english ? text.replace(/(?<![\p{L}\p{N}'])i(?=$|[^\p{L}\p{N}]|'(?:m|ll|d|ve)\b)/gu, 'I') : text;
  // The first letter of the text and of each word after end punctuation.
  out = out.replace(/(^|[.!?]\s+)(\p{Ll})(\p{L}*)/gu, (m, lead: string, first: string, rest: string) =>
    /\p{Lu}/u.test(rest) ? m : `${lead}${first.toUpperCase()}${rest}`,
  );
  return out;
}

/** The readable form of one recognized result (see the module comment). */
export function readableText(r: RecognizedText, language: string, options: ReadableOptions = {}): string {
  const raw = r.text.trim();
  if (!raw) return raw;
  const cjk = CJK.has(baseLanguage(language));
  const plain = !ANY_PUNCTUATION.test(raw);
  const timed = r.words?.length && r.words.map((w) => w.text).join(' ') === raw;
  let text = plain && r.isFinal && timed && !cjk ? punctuateByPauses(r.words!) : raw;
  if (options.rewrite) text = options.rewrite(text);
  text = capitalize(text, language);
  if (plain && r.isFinal && !END_PUNCTUATION.test(text)) text += cjk ? '。' : '.';
  return text;
}
