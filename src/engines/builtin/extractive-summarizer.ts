/**
 * Extractive summarizer (no model): the transcript's own key sentences, cleaned of spoken
 * fillers, in the order they were said, filed under the template's sections. It cannot write
 * new text, so what it does and does not do (docs/summaries.md, "Built-in summaries"):
 * - key sentences: TextRank centrality (in blocks of RANK_BLOCK sentences, so a long
 *   transcript costs linear time and every part of it can contribute) plus a small prior for
 *   content-rich sentences, near duplicates skipped, about the square root of the sentence count (2 to 12), in transcript
 *   order; hesitations, openers ("and so", "well") and doubled words removed;
 * - a section is written only when the text supports it: decisions, action items, open
 *   questions and examples from cue words, participants from self-introductions ("my name
 *   is ..."), the first general section from the key sentences; every other section is left
 *   out (never "(none noted)"); when nothing but key sentences fits, they come under one
 *   general heading;
 * - a transcript too short to summarize (under MIN_SENTENCES sentences or MIN_WORDS words)
 *   comes back cleaned and whole, marked `tooShort` (callers do not charge it as a summary);
 * - the summary is in the transcript's own language (processing/summarize.ts
 *   `planSummaryLanguage` translates it when another summary language is asked and a
 *   translator serves the pair); a custom prompt cannot be followed
 *   (capability `instructions` false: callers refuse custom mode without an LLM).
 * Usage is counted in characters (input: transcript characters read; output: characters written).
 */
import { isChinese } from '../../languages.js';
import { EngineError } from '../errors.js';
import type { EngineFactory } from '../registry.js';
import type { SummarizeOptions, Summarizer, SummaryResult } from '../types.js';
import {
  blockRank,
  type CueKind,
  cleanSentence,
  contentSize,
  introducedNames,
  isCjkText,
  matchesCue,
  type SectionKind,
  sectionKind,
  splitSentences,
  tokens,
} from './extractive-summarizer-text.js';
import { chineseScriptOf } from './text-language-id.js';

const MAX_PER_SECTION = 5;
/** Below either of these a transcript is its own summary. */
export const MIN_SENTENCES = 3;
export const MIN_WORDS = 40;
/** Candidates sharing more than this fraction of their words with a chosen sentence are repeats. */
const MAX_OVERLAP = 0.6;

interface Section {
  heading: string;
  kind: SectionKind;
}

/** Headings of the template's output format ("## Key points" lines); one general section if none. */
export function parseSections(outputFormat: string | undefined, language: string): Section[] {
  const headings = (outputFormat ?? '')
    .split('\n')
    .map((l) => /^\s*#{1,6}\s+(.+?)\s*#*\s*$/.exec(l)?.[1])
    .filter((h): h is string => Boolean(h));
  if (headings.length === 0) headings.push(generalHeading(language));
  return headings.map((heading) => ({ heading, kind: sectionKind(heading) }));
}

function generalHeading(language: string): string {
  if (isChinese(language)) return language === 'zh-TW' || language === 'zh-HK' ? '重點' : '重点';
  const base = language.split('-')[0] ?? 'en';
  return { es: 'Puntos clave', fr: 'Points clés', de: 'Kernpunkte', pt: 'Pontos principais', it: 'Punti chiave' }[base] ?? 'Key points';
}

/** How many key sentences: about the square root of the sentence count, 2..12. */
export function keyPointCount(n: number): number {
  return Math.max(2, Math.min(12, Math.round(Math.sqrt(n))));
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size || !b.size) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / Math.min(a.size, b.size);
}

export class ExtractiveSummarizer implements Summarizer {
  readonly id = 'builtin/extractive-summarizer';
  readonly kind = 'summarizer' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = { languages: ['*'], instructions: false };

  async summarize(options: SummarizeOptions): Promise<SummaryResult> {
    const source = options.segments.join('\n');
    const sentences = options.segments
      .flatMap((s) => splitSentences(s))
      .map(cleanSentence)
      .filter(Boolean);
    if (sentences.length === 0) throw new EngineError('summary_text_empty', 'There is no text to summarize.', { engineId: this.id });
    const usage = (text: string) => ({ input: [...source].length, output: [...text].length });
    const cjk = isCjkText(source);
    if (sentences.length < MIN_SENTENCES || contentSize(source) < MIN_WORDS) {
      const text = sentences.join(cjk ? '' : ' ');
      options.onDelta?.(text);
      return { text, usage: usage(text), truncated: false, tooShort: true };
    }
    // A small prior for content-rich sentences breaks the ties TextRank leaves when sentences
    // share few words (short transcripts), so "Good morning everyone." does not win by position.
    const words = sentences.map((s) => new Set(tokens(s)));
    const scores = (await blockRank(sentences, options.signal)).map((r, i) => r + (0.05 * Math.min(words[i]!.size, 20)) / 20);
    const byScore = sentences.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
    const textLanguage = cjk ? (chineseScriptOf(source) === 'Hant' ? 'zh-TW' : 'zh-CN') : options.language;
    const sections = parseSections(options.template?.outputFormat, textLanguage);

    // Cue sections first, so the key points can avoid repeating their sentences.
    const picked = new Map<Section, string[]>();
    const used = new Set<number>();
    for (const s of sections) {
      if (s.kind === 'general') continue;
      if (s.kind === 'participants') {
        picked.set(s, [...new Set(sentences.flatMap(introducedNames))].slice(0, 20));
        continue;
      }
      const kind: CueKind = s.kind;
      const hits = byScore.filter((i) => !used.has(i) && matchesCue(kind, sentences[i]!)).slice(0, MAX_PER_SECTION);
      for (const i of hits) used.add(i);
      picked.set(
        s,
        hits.sort((a, b) => a - b).map((i) => sentences[i]!),
      );
    }
    // Key points: central, content-bearing, not repeats of each other or of the cue sections.
    const want = keyPointCount(sentences.length);
    const chosen: number[] = [];
    const minWords = cjk ? 4 : 3;
    for (const pass of [minWords, 0]) {
      for (const i of byScore) {
        if (chosen.length >= want) break;
        if (used.has(i) || chosen.includes(i) || words[i]!.size < pass) continue;
        if (chosen.some((j) => overlap(words[i]!, words[j]!) > MAX_OVERLAP)) continue;
        chosen.push(i);
      }
    }
    const keyPoints = chosen.sort((a, b) => a - b).map((i) => sentences[i]!);
    const firstGeneral = sections.find((s) => s.kind === 'general');
    // Only the sections the text supports; the key points always appear (under a general heading when the template has none).
    const blocks: Array<{ heading: string; lines: string[] }> = [];
    for (const s of sections) {
      const lines = s === firstGeneral ? keyPoints : (picked.get(s) ?? []);
      if (lines.length) blocks.push({ heading: s.heading, lines });
    }
    if (!blocks.length) blocks.push({ heading: generalHeading(textLanguage), lines: keyPoints });

    let text = '';
    for (const b of blocks) {
      options.signal?.throwIfAborted();
      const block = options.plainText
        ? `${b.heading}\n${b.lines.join('\n')}`
        : `## ${b.heading}\n${b.lines.map((l) => `- ${l}`).join('\n')}`;
      text += (text ? '\n\n' : '') + block;
      options.onDelta?.(text);
    }
    return { text, usage: usage(text), truncated: false };
  }
}

export const extractiveSummarizerFactory: EngineFactory = {
  id: 'builtin/extractive-summarizer',
  kind: 'summarizer',
  tier: 'builtin',
  summary:
    'Extractive summary (TextRank key sentences cleaned of fillers, in transcript order; template sections only where the text supports them; no custom prompts; usage in characters)',
  async create() {
    return new ExtractiveSummarizer();
  },
};
