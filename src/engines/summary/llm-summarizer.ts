/**
 * 'llm-summarizer': summaries from any LanguageModel (remote chat or local llama.cpp).
 *
 * Content-filter fallback, as the spec's summary_fallback_level describes:
 *   level 1: the template / custom prompt;
 *   level 2: on llm_content_filtered, neutral instructions over the whole transcript;
 *   level 3: on a second refusal, find the segments the filter refuses (halving chunks of
 *            segments, probing each with a 1-token request) and summarize the rest, reporting
 *            `droppedSegments` (original indexes, ascending).
 * Only when every path is refused does it throw llm_content_filtered.
 *
 * `truncated` is true when the model stopped at the output limit, or when the time limit
 * cut the stream (the text so far is returned, as the spec allows).
 */
import { EngineError } from '../errors.js';
import type { ChatMessage, LanguageModel, SummarizeOptions, Summarizer, SummaryResult, TokenUsage } from '../types.js';
import { level1Messages, neutralMessages, stripMarkdown, transcriptBlock } from './prompts.js';

export interface LlmSummarizerOptions {
  /** Output tokens allowed for one summary. */
  maxTokens: number;
  /** Wall-clock limit of one summary attempt; the partial text is returned as truncated. */
  timeLimitMs: number;
  /** False: leave the built-in templates to another summarizer (capability `templates`). */
  templates?: boolean;
}

const filtered = (err: unknown) => err instanceof EngineError && err.code === 'llm_content_filtered';

export function createLlmSummarizer(llm: LanguageModel, opts: LlmSummarizerOptions): Summarizer {
  const id = 'llm-summarizer';

  async function attempt(usage: TokenUsage, messages: ChatMessage[], o: SummarizeOptions): Promise<Omit<SummaryResult, 'usage'>> {
    const limit = AbortSignal.timeout(opts.timeLimitMs);
    const signal = o.signal ? AbortSignal.any([limit, o.signal]) : limit;
    let text = '';
    const shown = (t: string) => (o.plainText ? stripMarkdown(t) : t);
    try {
      const res = await llm.chat(messages, {
        maxTokens: opts.maxTokens,
        temperature: 0.2,
        signal,
        onDelta: (d) => {
          text += d;
          o.onDelta?.(shown(text));
        },
      });
      usage.input += res.usage.input;
      usage.output += res.usage.output;
      return { text: shown(res.text).trim(), truncated: res.truncated };
    } catch (err) {
      // The time limit (not the caller) stopped a stream that had produced text: keep it, truncated.
      if (limit.aborted && !o.signal?.aborted && text.trim()) {
        usage.input += Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4);
        usage.output += Math.ceil(text.length / 4);
        return { text: shown(text).trim(), truncated: true };
      }
      throw err;
    }
  }

  /** True when the filter refuses these segments; probes cost one output token. */
  async function refuses(usage: TokenUsage, o: SummarizeOptions, indexes: number[]): Promise<boolean> {
    try {
      const res = await llm.chat(neutralMessages(o, transcriptBlock(o.segments, new Set(indexes))), { maxTokens: 1, signal: o.signal });
      usage.input += res.usage.input;
      usage.output += res.usage.output;
      return false;
    } catch (err) {
      if (filtered(err)) return true;
      throw err;
    }
  }

  /** Halves refused chunks down to single segments; returns the refused indexes in order. */
  async function offending(usage: TokenUsage, o: SummarizeOptions, indexes: number[]): Promise<number[]> {
    if (!indexes.length || !(await refuses(usage, o, indexes))) return [];
    if (indexes.length === 1) return indexes;
    const mid = Math.ceil(indexes.length / 2);
    return [...(await offending(usage, o, indexes.slice(0, mid))), ...(await offending(usage, o, indexes.slice(mid)))];
  }

  return {
    id,
    kind: 'summarizer',
    tier: llm.tier,
    capabilities: { languages: llm.capabilities.languages, streaming: true, instructions: true, templates: opts.templates ?? true },
    async summarize(o) {
      const usage: TokenUsage = { input: 0, output: 0 };
      const all = transcriptBlock(o.segments);
      if (!all) throw new EngineError('summary_text_empty', 'there is no text to summarize', { engineId: id });
      try {
        return { ...(await attempt(usage, level1Messages(o, all), o)), usage: { ...usage } };
      } catch (err) {
        if (!filtered(err)) throw err;
      }
      try {
        return { ...(await attempt(usage, neutralMessages(o, all), o)), usage: { ...usage }, fallbackLevel: 2 };
      } catch (err) {
        if (!filtered(err)) throw err;
      }
      const dropped = await offending(
        usage,
        o,
        o.segments.map((_, i) => i),
      );
      const keep = new Set(o.segments.map((_, i) => i).filter((i) => !dropped.includes(i)));
      const rest = transcriptBlock(o.segments, keep);
      if (!dropped.length || !rest)
        throw new EngineError('llm_content_filtered', 'the content filter refused every way of summarizing this transcript', {
          engineId: id,
        });
      try {
        const r = await attempt(usage, neutralMessages(o, rest), o);
        return { ...r, usage: { ...usage }, fallbackLevel: 3, droppedSegments: dropped };
      } catch (err) {
        if (filtered(err))
          throw new EngineError('llm_content_filtered', 'the content filter refused the summary even without the refused segments', {
            engineId: id,
            cause: err,
          });
        throw err;
      }
    },
    close: () => llm.close?.() ?? Promise.resolve(),
  };
}
