/**
 * Summary quality (part of bench:summary): the facts of bench/summary-rubric.ts that each
 * summarizer keeps, on the meeting-minutes template and on each text's custom prompt, with the
 * time and token counts. Summarizers: the built-in extractive one, and the LLM summarizer on
 * the local model `npm run setup` installed (PARLEY_LLAMA_MODEL in PARLEY_MODELS_DIR), forced
 * to write the template too so both are compared on the same task. The extractive summarizer
 * cannot follow a custom prompt (the service refuses custom mode without an LLM), so only the
 * LLM has custom figures. `--show` prints every summary.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { ExtractiveSummarizer } from '../src/engines/builtin/extractive-summarizer.js';
import { llamaFromContext } from '../src/engines/neural/llama-cpp.js';
import { createLlmSummarizer } from '../src/engines/summary/llm-summarizer.js';
import type { Summarizer } from '../src/engines/types.js';
import { BUILTIN_TEMPLATES } from '../src/summary-templates/builtin.js';
import { type Fact, kept, RUBRIC } from './summary-rubric.js';

/** Output cap of the LLM (BENCH_SUMMARY_MAX_TOKENS): lower it on a busy machine. */
const MAX_TOKENS = Number(process.env.BENCH_SUMMARY_MAX_TOKENS ?? 256);

async function localLlm(): Promise<{ engine: Summarizer; name: string } | { unavailable: string }> {
  const config = loadConfig();
  const modelsDir = config.engines.modelsDir ?? join(config.platform.dataDir, 'models');
  const llm = await llamaFromContext({ config, modelsDir, logger: pino({ level: 'silent' }), loaded: [] });
  if ('unavailable' in llm) return llm;
  return {
    engine: createLlmSummarizer({ ...llm }, { maxTokens: MAX_TOKENS, timeLimitMs: 900_000 }),
    name: `llm-summarizer on ${config.engines.llamaModel}`,
  };
}

export async function qualitySection(show: boolean): Promise<void> {
  const t = BUILTIN_TEMPLATES.find((x) => x.slug === 'meeting-minutes')!;
  const template = { slug: t.slug, systemPrompt: t.system_prompt, templatePrompt: t.template_prompt, outputFormat: t.output_format };
  const engines: Array<{ engine: Summarizer; name: string }> = [{ engine: new ExtractiveSummarizer(), name: 'builtin/extractive' }];
  const llm = await localLlm();
  if ('unavailable' in llm) console.log(`local LLM not measured: ${llm.unavailable}`);
  else engines.push(llm);
  console.log(`\nsummary quality: facts of bench/summary-rubric.ts kept (LLM output capped at ${MAX_TOKENS} tokens, temperature 0.2)`);
  console.log('summarizer                              text  task      facts  ms      first ms  tokens in/out  truncated  noise');
  const totals = new Map<string, { kept: number; of: number }>();
  for (const { engine, name } of engines) {
    for (const c of RUBRIC) {
      for (const task of ['template', 'custom'] as const) {
        if (task === 'custom' && engine.capabilities.instructions === false) continue;
        const facts: Fact[] = task === 'template' ? c.facts : c.custom.facts;
        const t0 = performance.now();
        let first = 0;
        const r = await engine.summarize({
          segments: c.segments,
          language: 'en',
          plainText: false,
          ...(task === 'template' ? { template } : { customPrompt: c.custom.prompt }),
          onDelta: () => {
            first ||= performance.now() - t0;
          },
        });
        const ms = performance.now() - t0;
        const got = kept(r.text, facts);
        const key = `${name} ${task}`;
        const sum = totals.get(key) ?? { kept: 0, of: 0 };
        totals.set(key, { kept: sum.kept + got.length, of: sum.of + facts.length });
        const noise = c.noise.filter((re) => re.test(r.text)).length;
        console.log(
          `${name.padEnd(40)}${c.name.slice(0, 1).padEnd(6)}${task.padEnd(10)}${`${got.length}/${facts.length}`.padEnd(7)}${ms.toFixed(0).padEnd(8)}${first.toFixed(0).padEnd(10)}${`${r.usage.input}/${r.usage.output}`.padEnd(15)}${String(r.truncated).padEnd(11)}${noise}`,
        );
        const lost = facts.map((f) => f.name).filter((n) => !got.includes(n));
        if (lost.length) console.log(`      missing: ${lost.join('; ')}`);
        if (show) console.log(`${r.text.replace(/^/gm, '      | ')}`);
      }
    }
  }
  console.log('\ntotals');
  for (const [key, v] of totals) console.log(`  ${key.padEnd(50)} ${v.kept}/${v.of} facts (${Math.round((100 * v.kept) / v.of)} %)`);
  for (const { engine } of engines) await engine.close?.();
}
