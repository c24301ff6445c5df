/**
 * The words of a catch-up summary: what the summarizer is asked, how its answer becomes the
 * plain text viewers read (no headings, "- " list lines), how that text is fed back into the
 * next run of a rolling summary, and its translations (line by line, as summaries are).
 */
import { stripMarkdown } from '../../engines/summary/prompts.js';
import type { SummaryTemplateSpec } from '../../engines/types.js';
import { mapLines } from '../../processing/translate-text.js';

/**
 * The instructions, as a built-in template: the summarizer the engine layer picks for
 * built-in summaries writes it (an LLM follows the prompt; the extractive summarizer takes the
 * transcript's key sentences, in the order they were said).
 */
export const CATCH_UP_TEMPLATE: SummaryTemplateSpec = {
  slug: 'catch-up',
  systemPrompt:
    'You help people who join a live talk late to catch up. Use only what the transcript says; never add facts, opinions or greetings.',
  templatePrompt:
    'Summarize what has been said so far for someone who just joined: the main topics and points, in the order they came up, as at most 6 short "- " list lines. No headings, no introduction.',
  outputFormat: '',
};

/** The summarizer's text as viewers read it: plain text, headings left out, list lines as "- ". */
export function viewerText(summary: string): string {
  const withoutHeadings = summary
    .split('\n')
    .filter((line) => !/^\s{0,3}#{1,6}\s/.test(line))
    .join('\n');
  return stripMarkdown(withoutHeadings)
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A stored catch-up text as transcript segments again (the earlier part of a rolling summary). */
export function summarySegments(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.replace(/^\s*-\s+/, '').trim())
    .filter(Boolean);
}

/** The text in another language, line by line (list marks kept); null when no translator serves the pair. */
export async function translatedText(
  text: string,
  translate: (line: string) => Promise<string | null>,
  signal?: AbortSignal,
): Promise<string | null> {
  let unserved = false;
  const out = await mapLines(
    text,
    async (body) => {
      const t = unserved ? null : await translate(body);
      if (t === null) unserved = true;
      return t ?? body;
    },
    { signal },
  );
  return unserved ? null : out;
}

/** ms from going live as the viewers' mm:ss (origin.start_time's format; minutes past 99 as they are). */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
}
