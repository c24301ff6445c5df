/**
 * A Markdown text (a summary) translated line by line: headings, list marks, quote marks and
 * blank lines are kept and only the words go to the translator, so the structure survives
 * engines that would mangle it. Shared by the summary SSE endpoints and the summary language
 * of the built-in tier. Engine failures are thrown as they are (the caller maps them).
 */
import type { Translator } from '../engines/types.js';

export async function translateLines(
  translator: Translator,
  text: string,
  from: string,
  to: string,
  o: { signal?: AbortSignal; onText?: (cumulative: string) => void } = {},
): Promise<string> {
  return mapLines(text, (body) => translator.translate(body, { from, to, signal: o.signal }), o);
}

/**
 * The text with the words of each line replaced by `words(body)`: headings, list marks, quote
 * marks and blank lines kept as they are. Lines go one at a time, in order.
 */
export async function mapLines(
  text: string,
  words: (body: string) => Promise<string>,
  o: { signal?: AbortSignal; onText?: (cumulative: string) => void } = {},
): Promise<string> {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    o.signal?.throwIfAborted();
    const [, prefix = '', body = ''] = /^(\s*(?:#{1,6}\s+|[-*+•]\s+|\d+[.)]\s+|>\s?)?)(.*)$/.exec(line) ?? [];
    if (!body.trim()) {
      out.push(line);
      continue;
    }
    out.push(prefix + (await words(body)));
    o.onText?.(out.join('\n'));
  }
  return out.join('\n').trim();
}
