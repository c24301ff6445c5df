/**
 * 'neural/llama-cpp': a local GGUF model through node-llama-cpp (kind 'llm'), plus a
 * translator over it. node-llama-cpp is optional: its full install pulls ~700 MB of GPU
 * builds, so it is not a dependency; `npm run -s models -- enable-llama` installs it with
 * only the CPU build into the models folder's runtime prefix, and this module imports it
 * lazily (from the project's node_modules first, then from that prefix). The prebuilt
 * binary is loaded with `build: 'never', gpu: false`: never compile on a server.
 * One model file is loaded once and shared by the LLM, translator and summarizer engines.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EngineError } from '../errors.js';
import { findModel, type ModelEntry } from '../models/catalog.js';
import { llamaRuntimeDir } from '../models/paths.js';
import { isInstalled, modelDir } from '../models/store.js';
import type { EngineContext, EngineFactory } from '../registry.js';
import { llmTranslator } from '../remote/openai-translator.js';
import type { ChatMessage, ChatOptions, ChatResult, LanguageModel } from '../types.js';

// The subset of node-llama-cpp's API used here (the package is optional, so no static types).
interface LlamaModule {
  getLlama(o: { build: 'never'; gpu: false }): Promise<{ loadModel(o: { modelPath: string }): Promise<LlamaModel> }>;
  LlamaChatSession: new (o: { contextSequence: unknown; systemPrompt?: string }) => LlamaSession;
}
interface LlamaModel {
  createContext(o: {
    contextSize?: { max: number };
    threads?: number;
  }): Promise<{ getSequence(): LlamaSequence; dispose(): Promise<void> }>;
  dispose(): Promise<void>;
}
interface LlamaSequence {
  /** Tokens this sequence evaluated: the whole templated prompt in, the generated tokens out. */
  tokenMeter: { usedInputTokens: number; usedOutputTokens: number };
}
interface LlamaSession {
  setChatHistory(h: Array<{ type: 'system'; text: string } | { type: 'user'; text: string } | { type: 'model'; response: string[] }>): void;
  promptWithMeta(
    text: string,
    o: {
      maxTokens?: number;
      temperature?: number;
      signal?: AbortSignal;
      onTextChunk?: (t: string) => void;
      repeatPenalty?: { penalty?: number; lastTokens?: number; penalizeNewLine?: boolean };
    },
  ): Promise<{ responseText: string; stopReason: string }>;
}

export async function importLlama(modelsDir: string): Promise<LlamaModule | { unavailable: string }> {
  try {
    return (await import(/* optional */ 'node-llama-cpp' as string)) as LlamaModule;
  } catch {}
  const pkgDir = join(llamaRuntimeDir(modelsDir), 'node_modules', 'node-llama-cpp');
  if (!existsSync(join(pkgDir, 'package.json')))
    return { unavailable: 'node-llama-cpp is not installed; run npm run -s models -- enable-llama (CPU build only, ~60 MB)' };
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    exports?: { '.'?: { import?: string; default?: string } };
    main?: string;
  };
  const entry = pkg.exports?.['.']?.import ?? pkg.exports?.['.']?.default ?? pkg.main ?? 'index.js';
  return (await import(pathToFileURL(join(pkgDir, entry)).href)) as LlamaModule;
}

/** A catalogue name (installed under the models folder) or a path to a .gguf file. */
export function resolveGguf(modelsDir: string, setting: string): string | { unavailable: string } {
  if (isAbsolute(setting) || setting.endsWith('.gguf'))
    return existsSync(setting) ? setting : { unavailable: `GGUF file ${setting} does not exist` };
  const m = findModel(setting);
  if (m?.role !== 'llm') return { unavailable: `PARLEY_LLAMA_MODEL=${setting} is neither a .gguf path nor an LLM in models list` };
  if (!isInstalled(modelsDir, m)) return { unavailable: `model ${setting} not downloaded; run npm run -s models -- pull ${setting}` };
  const file = readdirSync(modelDir(modelsDir, m.name)).find((f) => f.endsWith('.gguf'));
  return file ? join(modelDir(modelsDir, m.name), file) : { unavailable: `no .gguf file in ${modelDir(modelsDir, m.name)}` };
}

/** The catalogue entry of PARLEY_LLAMA_MODEL (undefined for a file path: an operator's own model). */
export function llamaModelEntry(setting: string): ModelEntry | undefined {
  const m = findModel(setting);
  return m?.role === 'llm' ? m : undefined;
}

const loaded = new Map<string, Promise<LanguageModel>>();

async function loadLlm(mod: LlamaModule, path: string, threads: number, languages: readonly string[]): Promise<LanguageModel> {
  const llama = await mod.getLlama({ build: 'never', gpu: false });
  const model = await llama.loadModel({ modelPath: path });
  let queue: Promise<unknown> = Promise.resolve(); // one generation at a time: 2 cores, one model
  const chat = async (messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> => {
    const context = await model.createContext({ contextSize: { max: 8192 }, threads });
    try {
      const system = messages
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n\n');
      const rest = messages.filter((m) => m.role !== 'system');
      const last = rest.pop();
      const sequence = context.getSequence();
      const session = new mod.LlamaChatSession({ contextSequence: sequence, systemPrompt: system || undefined });
      if (rest.length)
        session.setChatHistory([
          ...(system ? [{ type: 'system' as const, text: system }] : []),
          ...rest.map((m) =>
            m.role === 'user' ? { type: 'user' as const, text: m.content } : { type: 'model' as const, response: [m.content] },
          ),
        ]);
      const r = await session.promptWithMeta(last?.content ?? '', {
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        signal: options.signal,
        onTextChunk: options.onDelta,
        // Small models loop ("The weather was nice." x 20) without a penalty on recent tokens.
        // Newlines are not penalized: lists and sections need them.
        repeatPenalty: { penalty: 1.1, lastTokens: 64, penalizeNewLine: false },
      });
      // What the model really read (the prompt with its chat template) and wrote: the billed tokens.
      const { usedInputTokens: input, usedOutputTokens: output } = sequence.tokenMeter;
      return { text: r.responseText, usage: { input, output }, truncated: r.stopReason === 'maxTokens' };
    } catch (err) {
      if (options.signal?.aborted)
        throw new EngineError('llm_timeout', 'generation stopped by the time limit', {
          retryable: true,
          engineId: 'neural/llama-cpp',
          cause: err,
        });
      throw new EngineError('llm_request_failed', `llama.cpp failed: ${String(err)}`, { engineId: 'neural/llama-cpp', cause: err });
    } finally {
      await context.dispose();
    }
  };
  return {
    id: 'neural/llama-cpp',
    kind: 'llm',
    tier: 'neural',
    capabilities: { languages, streaming: true },
    chat(messages, options) {
      const run = queue.then(() => chat(messages, options));
      queue = run.catch(() => {});
      return run;
    },
    async close() {
      loaded.delete(path);
      await model.dispose();
    },
  };
}

export async function llamaFromContext(ctx: EngineContext): Promise<LanguageModel | { unavailable: string }> {
  if (ctx.config.engines.llama === 'off') return { unavailable: 'PARLEY_LLAMA=off' };
  const path = resolveGguf(ctx.modelsDir, ctx.config.engines.llamaModel);
  if (typeof path !== 'string') return path;
  const mod = await importLlama(ctx.modelsDir);
  if ('unavailable' in mod) return mod;
  let p = loaded.get(path);
  if (!p) {
    p = loadLlm(mod, path, ctx.config.engines.neuralThreads, llamaModelEntry(ctx.config.engines.llamaModel)?.languages ?? ['*']);
    loaded.set(path, p);
    p.catch(() => loaded.delete(path));
  }
  return p;
}

export const llamaCppFactory: EngineFactory = {
  id: 'neural/llama-cpp',
  kind: 'llm',
  tier: 'neural',
  summary: 'Local GGUF LLM through node-llama-cpp, CPU build (PARLEY_LLAMA_MODEL; `models enable-llama`, `models pull`).',
  create: llamaFromContext,
};

export const llamaTranslatorFactory: EngineFactory = {
  id: 'neural/llama-translator',
  kind: 'translator',
  tier: 'neural',
  summary: 'Translation of any pair by the local llama.cpp model with a strict translation prompt.',
  async create(ctx) {
    const weak = llamaModelEntry(ctx.config.engines.llamaModel)?.weakAt?.includes('translation');
    if (weak)
      return {
        unavailable: `${ctx.config.engines.llamaModel} translates worse than the built-in engines (docs/summaries.md); a larger PARLEY_LLAMA_MODEL translates`,
      };
    const llm = await llamaFromContext(ctx);
    if ('unavailable' in llm) return llm;
    // close() of the translator must not unload the model the LLM engine shares.
    return llmTranslator({ ...llm, close: undefined }, 'neural/llama-translator', 'neural');
  },
};
