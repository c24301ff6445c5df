/**
 * Prompts of the LLM summarizer. Level 1 uses the caller's template or custom prompt; level
 * 2 (after a content-filter refusal) replaces every instruction of the caller with neutral,
 * record-keeping wording, since the template's own wording can be what trips a filter.
 */
import { languageName } from '../remote/openai-translator.js';
import type { ChatMessage, SummarizeOptions } from '../types.js';

const DEFAULT_SYSTEM = 'You write accurate, concise summaries of transcripts. Use only facts stated in the transcript.';
const NEUTRAL_SYSTEM =
  'You are a neutral record-keeping assistant. Write a factual, neutral summary of what was discussed, without judgement, quotes of offensive language or speculation.';

function styleRules(o: SummarizeOptions): string {
  const lang = `Write the summary in ${languageName(o.language)}, whatever the transcript's language.`;
  const format = o.plainText
    ? 'Write plain text only: no Markdown, no "#" headings, no "*" or "_" emphasis, no backticks, no tables. Use short paragraphs; list items may start with "- ".'
    : 'Format the summary in Markdown.';
  return `${lang} ${format}`;
}

export function transcriptBlock(segments: string[], keep?: ReadonlySet<number>): string {
  return segments
    .map((s, i) => (keep && !keep.has(i) ? null : s.trim()))
    .filter((s): s is string => !!s)
    .join('\n');
}

export function level1Messages(o: SummarizeOptions, transcript: string): ChatMessage[] {
  const system = `${o.template?.systemPrompt?.trim() || DEFAULT_SYSTEM}\n\n${styleRules(o)}`;
  const instruction =
    o.customPrompt?.trim() || o.template?.templatePrompt?.trim() || 'Summarize the transcript: key points, decisions and action items.';
  const format = !o.customPrompt && o.template?.outputFormat ? `\n\nUse exactly these sections:\n${o.template.outputFormat}` : '';
  return [
    { role: 'system', content: system },
    { role: 'user', content: `${instruction}${format}\n\nTranscript:\n${transcript}` },
  ];
}

export function neutralMessages(o: SummarizeOptions, transcript: string): ChatMessage[] {
  return [
    { role: 'system', content: `${NEUTRAL_SYSTEM}\n\n${styleRules(o)}` },
    { role: 'user', content: `Summarize the main topics, decisions and next steps of this transcript.\n\nTranscript:\n${transcript}` },
  ];
}

/** Removes Markdown that a model writes despite being told not to (plain-text summaries). */
export function stripMarkdown(text: string): string {
  return text
    .replace(/```[a-z]*\n?/gi, '')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s{0,3}>\s?/gm, '')
    .replace(/^(\s*)[*+•]\s+/gm, '$1- ')
    .replace(/\*\*([^*\n]+)\*\*|__([^_\n]+)__/g, '$1$2')
    .replace(/(^|[^\w*])\*([^*\n]+)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w])_([^_\n]+)_(?!\w)/g, '$1$2')
    .replace(/`([^`\n]+)`/g, '$1')
    .replace(/\[([^\]\n]+)\]\((https?:[^)\s]+)\)/g, '$1 ($2)')
    .replace(/^\s*\|?\s*:?-{3,}.*$/gm, '')
    .replace(/\n{3,}/g, '\n\n');
}
