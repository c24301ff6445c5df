/**
 * Extractive summarizer (no model): picks the most central sentences of the transcript with
 * TextRank and files them under the template's sections. It cannot write new text, so:
 * - the summary is in the transcript's own language (the domain translates it when the
 *   requested summary language differs and a translator exists);
 * - a custom prompt cannot be followed; only its sections (if the template has any) shape
 *   the output;
 * - "Decisions"/"Action items"/"Open questions" sections get sentences with matching cue
 *   words; a section with nothing that fits says so ("(none noted)") instead of guessing.
 * Usage is counted in characters (input: transcript characters read; output: characters
 * written), since there are no tokens.
 */
import { isChinese } from '../../languages.js';
import { EngineError } from '../errors.js';
import type { EngineFactory } from '../registry.js';
import type { SummarizeOptions, Summarizer, SummaryResult } from '../types.js';
import {
  isCjkText,
  matchesCue,
  noneNoted,
  type SectionKind,
  sectionKind,
  splitSentences,
  textRank,
  tokens,
} from './extractive-summarizer-text.js';
import { chineseScriptOf } from './text-language-id.js';

const MAX_PER_SECTION = 5;

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
  if (headings.length === 0) headings.push(isChinese(language) ? '摘要' : 'Summary');
  return headings.map((heading) => ({ heading, kind: sectionKind(heading) }));
}

/** How many sentences the first (general) section gets: about a fifth, 1..7. */
function keyPointCount(n: number): number {
  return Math.max(1, Math.min(7, Math.ceil(n / 5)));
}

export class ExtractiveSummarizer implements Summarizer {
  readonly id = 'builtin/extractive-summarizer';
  readonly kind = 'summarizer' as const;
  readonly tier = 'builtin' as const;
  readonly capabilities = { languages: ['*'] };

  async summarize(options: SummarizeOptions): Promise<SummaryResult> {
    const source = options.segments.join('\n');
    const sentences = options.segments.flatMap((s) => splitSentences(s));
    if (sentences.length === 0) throw new EngineError('summary_text_empty', 'There is no text to summarize.', { engineId: this.id });
    // A small prior for content-rich sentences breaks the ties TextRank leaves when sentences
    // share few words (short transcripts), so "Good morning everyone." does not win by position.
    const scores = textRank(sentences).map((r, i) => r + (0.05 * Math.min(tokens(sentences[i]!).length, 20)) / 20);
    const byScore = sentences.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
    // The "nothing fits" line is written in the transcript's language, like the rest.
    const textLanguage = isCjkText(source) ? (chineseScriptOf(source) === 'Hant' ? 'zh-TW' : 'zh-CN') : options.language;
    const sections = parseSections(options.template?.outputFormat, textLanguage);

    // Cue sections first, so the general section can avoid repeating their sentences.
    const picked = new Map<Section, number[]>();
    const used = new Set<number>();
    for (const s of sections) {
      if (s.kind === 'general') continue;
      const kind = s.kind;
      const hits = byScore.filter((i) => matchesCue(kind, sentences[i]!)).slice(0, MAX_PER_SECTION);
      picked.set(s, hits);
      for (const i of hits) used.add(i);
    }
    const generals = sections.filter((s) => s.kind === 'general');
    const want = keyPointCount(sentences.length);
    const fresh = byScore.filter((i) => !used.has(i));
    const pool = fresh.length >= want ? fresh : byScore;
    // The first general section gets the best sentences; later ones (e.g. "Participants")
    // cannot be answered by extraction and say so.
    for (const [n, s] of generals.entries()) picked.set(s, n === 0 ? pool.slice(0, want) : []);

    let text = '';
    for (const s of sections) {
      options.signal?.throwIfAborted();
      const lines = (picked.get(s) ?? []).sort((a, b) => a - b).map((i) => sentences[i]!);
      const body = lines.length > 0 ? lines : [noneNoted(textLanguage)];
      const block = options.plainText
        ? `${s.heading}\n${body.join('\n')}`
        : `## ${s.heading}\n${body.map((l) => (lines.length > 0 ? `- ${l}` : l)).join('\n')}`;
      text += (text ? '\n\n' : '') + block;
      options.onDelta?.(text);
    }
    return { text, usage: { input: [...source].length, output: [...text].length }, truncated: false };
  }
}

export const extractiveSummarizerFactory: EngineFactory = {
  id: 'builtin/extractive-summarizer',
  kind: 'summarizer',
  tier: 'builtin',
  summary: 'Extractive summary (TextRank; sentences in the transcript language filed under the template sections; usage in characters)',
  async create() {
    return new ExtractiveSummarizer();
  },
};
