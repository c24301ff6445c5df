/**
 * Summaries on the real local LLM that `npm run setup` installs (SmolLM2 135M through
 * node-llama-cpp, CPU build), through HTTP and SSE: custom regeneration (GET preview, POST
 * persist with prompt_snapshot and history), a custom summary in a language the model does not
 * write (written in English, translated by Apertium), template summaries kept by the extractive
 * summarizer (the model is worse at them: docs/summaries.md), and an import with a custom prompt
 * on real speech. Token counts are the model's own (node-llama-cpp's token meter) and billing
 * rows are checked. Output is capped at 48 tokens to keep the suite short: measured 257 s at load
 * 34 on 2 shared cores (35-104 s a test); an idle machine generates many times faster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { classicDiarizerFactory } from '../../src/engines/builtin/diarizer/index.js';
import { extractiveSummarizerFactory } from '../../src/engines/builtin/extractive-summarizer.js';
import { pocketsphinxFileFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry, type FactoryResult } from '../../src/engines/registry.js';
import { llmSummarizerFactory } from '../../src/engines/summary/factory.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { upload, watchSse } from '../imports/support.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { LIBRIVOX_DIR } from '../support/audio.js';
import { llamaContext, llamaMissing } from '../support/llama.js';
import { type Ev, funded, MEETING, openStream, PLANS, seed, usageRows } from './support.js';

const MAX_TOKENS = 48;
const missing = await llamaMissing();

async function engines(): Promise<EngineRegistry> {
  const ctx = llamaContext({ PARLEY_SUMMARY_MAX_TOKENS: String(MAX_TOKENS), PARLEY_SUMMARY_TIME_LIMIT_MS: '600000' });
  const out: AnyEngine[] = [];
  for (const f of [llmSummarizerFactory, extractiveSummarizerFactory, apertiumFactory, pocketsphinxFileFactory, classicDiarizerFactory]) {
    const e: FactoryResult = await f.create(ctx);
    if ('unavailable' in e) throw new Error(`${f.id} unavailable: ${e.unavailable}`);
    out.push(...(Array.isArray(e) ? e : [e]));
  }
  return EngineRegistry.fromEngines(out);
}

const texts = (events: Ev[]) =>
  events.filter((e) => e.event === 'summary_regeneration').map((e) => e.data as { text: string; is_final: boolean });

describe.skipIf(missing)('summaries on the local LLM (node-llama-cpp, the model setup installs)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ engines: await engines(), env: { PARLEY_PLANS: PLANS, PARLEY_PRICE_SUMMARY: '5' } });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });
  const url = (taskId: string, query = '') => `${t.url}/api/v1/sse/regenerate/summary/${taskId}${query}`;
  const price = () => t.app.deps.billing.prices.oneOff('regen_summary');

  it('GET custom regeneration: the model streams cumulative summary_regeneration events; done has its token counts, prompt_snapshot and the charge', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    const prompt = 'List the action items with who does them.';
    const q = `?mode=custom&prompt=${encodeURIComponent(prompt)}&promptSlug=actions-v1`;
    const events = await (await openStream(url(task.taskId, q), { key: f.key })).all();
    expect(events[0]!.event).toBe('connected');
    expect(events.at(-1)!.event, JSON.stringify(events.at(-1))).toBe('done');
    const steps = texts(events);
    // Token by token: several interim events, each extending the one before, then one final.
    expect(steps.length).toBeGreaterThan(3);
    for (let i = 1; i < steps.length; i++) expect(steps[i]!.text.startsWith(steps[i - 1]!.text.trim())).toBe(true);
    expect(steps.filter((s) => s.is_final)).toHaveLength(1);
    const done = events.at(-1)!.data;
    expect(steps.at(-1)!).toEqual({ text: done.final_content, is_final: true });
    expect(done).toMatchObject({
      task_id: task.taskId,
      mode: 'custom',
      template: 'actions-v1',
      prompt_snapshot: prompt,
      persisted: false,
      summary_language: 'en-US',
      characters_billed: MEETING.join('\n').length,
      charged: '5.0',
      billed: true,
    });
    expect(done.final_content.trim()).not.toBe('');
    // The model's own counts: the templated prompt (more tokens than the transcript has words) and
    // at most the output cap; at the cap the summary says it was truncated.
    const words = `${prompt} ${MEETING.join(' ')}`.split(/\s+/).length;
    expect(done.tokens_used.input).toBeGreaterThan(words);
    expect(done.tokens_used.output).toBeGreaterThan(0);
    expect(done.tokens_used.output).toBeLessThanOrEqual(MAX_TOKENS);
    if (done.tokens_used.output === MAX_TOKENS) expect(done.truncated).toBe(true);
    else expect(done).not.toHaveProperty('truncated');
    expect(await usageRows(t, f.key)).toEqual([expect.objectContaining({ type: 'regen_summary', points: price(), task_id: task.taskId })]);
  }, 600_000);

  it('POST custom regeneration saves the summary with its prompt snapshot; history shows it', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    const prompt = 'Write one sentence: what was decided about Portugal?';
    const events = await (
      await openStream(url(task.taskId), { method: 'POST', key: f.key, body: { mode: 'custom', prompt, promptSlug: 'portugal' } })
    ).all();
    const done = events.at(-1)!;
    expect(done.event, JSON.stringify(done)).toBe('done');
    expect(done.data).toMatchObject({ mode: 'custom', template: 'portugal', prompt_snapshot: prompt, persisted: true, billed: true });
    const history = await (await openStream(`${t.url}/api/v1/sse/history/transcribe/${task.taskId}`, { key: f.key })).all();
    expect(history.find((e) => e.event === 'init_summary')!.data).toEqual({
      text: done.data.final_content,
      mode: 'custom',
      template: 'portugal',
      plain_text: false,
      summary_language: 'en-US',
      prompt_snapshot: prompt,
    });
    expect(await usageRows(t, f.key)).toEqual([expect.objectContaining({ type: 'regen_summary', points: price() })]);
  }, 600_000);

  it('template summaries stay with the extractive summarizer (every line is a sentence of the transcript)', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    const events = await (await openStream(url(task.taskId, '?mode=builtin&template=meeting-minutes'), { key: f.key })).all();
    const done = events.at(-1)!.data;
    const bullets = (done.final_content as string)
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => l.slice(2));
    expect(bullets.length).toBeGreaterThan(0);
    // The extractive summarizer drops fillers and doubled words and capitalizes what is left.
    const said = MEETING.join(' ').replace('the the', 'the').toLowerCase();
    for (const b of bullets) expect(said).toContain(b.toLowerCase());
  }, 120_000);

  it('a custom summary asked in Spanish: the English-only model writes it, Apertium translates it; done says es', async () => {
    const f = await funded(t, 100);
    const task = await seed(t, f.principal, MEETING);
    const q = `?mode=custom&prompt=${encodeURIComponent('Summarize the decisions.')}&promptSlug=d&language=es`;
    const events = await (await openStream(url(task.taskId, q), { key: f.key })).all();
    const done = events.at(-1)!;
    expect(done.event, JSON.stringify(done)).toBe('done');
    expect(done.data).toMatchObject({ summary_language: 'es', mode: 'custom', billed: true });
    // Apertium's Spanish (common function words), not the model's English.
    expect(done.data.final_content).toMatch(/\b(el|la|los|las|de|del|en|que|y)\b/);
  }, 600_000);

  it('an import with a custom prompt completes with the model summary; its summary row is charged', async () => {
    const f = await funded(t, 100);
    const audio = `${LIBRIVOX_DIR}/sense_and_sensibility_01_austen_64kb-0870.wav`;
    const prompt = 'Who is mentioned, in one sentence?';
    const res = await upload(t.url, f.key, {
      file: { path: audio },
      fields: { summary_mode: 'custom', summary_prompt: prompt, summary_prompt_slug: 'who' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const progress = await watchSse(`${t.url}/api/v1/sse/imports/${res.body.data.import_id}/progress`, { 'x-api-key': f.key }).done;
    expect(progress.at(-1)!.event, JSON.stringify(progress.at(-1))).toBe('completed');
    const taskId = progress.at(-1)!.data.task_id as string;
    const history = await (await openStream(`${t.url}/api/v1/sse/history/transcribe/${taskId}`, { key: f.key })).all();
    const summary = history.find((e) => e.event === 'init_summary')!.data;
    expect(summary).toMatchObject({ mode: 'custom', template: 'who', prompt_snapshot: prompt, summary_language: 'en-US' });
    expect(summary.text.trim()).not.toBe('');
    const rows = await usageRows(t, f.key);
    expect(rows.filter((r) => r.type === 'summary')).toEqual([
      expect.objectContaining({ task_id: taskId, points: t.app.deps.billing.prices.oneOff('summary') }),
    ]);
  }, 600_000);
});
