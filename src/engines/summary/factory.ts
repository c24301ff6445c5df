/**
 * Registers 'llm-summarizer' ahead of the extractive one. Rather than a dependency
 * mechanism in the registry, the factory builds its own LLM client from the same settings
 * the LLM engines read: the remote chat endpoint first, then the local llama.cpp model
 * (which the llama module loads once per model file, so both engines share it).
 */
import { llamaCppFactory, llamaModelEntry } from '../neural/llama-cpp.js';
import type { EngineContext, EngineFactory } from '../registry.js';
import { openAiChatFactory } from '../remote/openai-chat.js';
import type { LanguageModel } from '../types.js';
import { createLlmSummarizer } from './llm-summarizer.js';

export async function configuredLlm(ctx: EngineContext): Promise<LanguageModel | { unavailable: string }> {
  const reasons: string[] = [];
  for (const f of [openAiChatFactory, llamaCppFactory]) {
    const r = await f.create(ctx).catch((err: unknown) => ({ unavailable: String(err) }));
    if (!('unavailable' in r) && !Array.isArray(r) && r.kind === 'llm') return r;
    if ('unavailable' in r) reasons.push(`${f.id}: ${r.unavailable}`);
  }
  return { unavailable: `no language model: ${reasons.join('; ')}` };
}

/**
 * Whether this LLM should write the built-in templates' summaries (PARLEY_SUMMARY_TEMPLATE_ENGINE):
 * auto says no for a local catalogue model measured worse at them than the extractive summarizer.
 */
function writesTemplates(ctx: EngineContext, llm: LanguageModel): boolean {
  const setting = ctx.config.engines.summaryTemplateEngine;
  if (setting !== 'auto') return setting === 'llm';
  return !(llm.id === llamaCppFactory.id && llamaModelEntry(ctx.config.engines.llamaModel)?.weakAt?.includes('template-summaries'));
}

export const llmSummarizerFactory: EngineFactory = {
  id: 'llm-summarizer',
  kind: 'summarizer',
  tier: 'remote',
  summary: 'Summaries by an LLM (remote chat or llama.cpp) from the template or custom prompt, with the content-filter fallback levels.',
  async create(ctx) {
    const llm = await configuredLlm(ctx);
    if ('unavailable' in llm) return llm;
    const e = ctx.config.engines;
    // The LLM engine itself owns the client (and a shared llama.cpp model): the summarizer must not close it.
    return createLlmSummarizer(
      { ...llm, close: undefined },
      { maxTokens: e.summaryMaxTokens, timeLimitMs: e.summaryTimeLimitMs, templates: writesTemplates(ctx, llm) },
    );
  },
};
