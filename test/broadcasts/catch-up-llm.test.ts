/**
 * Catch-up summaries written by the local LLM that `npm run setup` installs (SmolLM2 135M
 * through node-llama-cpp), picked by the engine layer for built-in summaries when the
 * deployment says so (PARLEY_SUMMARY_TEMPLATE_ENGINE=llm; `auto` keeps the extractive
 * summarizer for this model, measured worse at them). A real host (PocketSphinx, Apertium)
 * speaks, pauses (a run at once), and a joiner gets the model's summary in Spanish; the
 * operator's /metrics shows the LLM summarizer did the work, the extractive one did not.
 * Output capped at 64 tokens to keep it short on a loaded machine.
 */
import { detect } from 'tinyld';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apertiumFactory } from '../../src/engines/builtin/apertium.js';
import { extractiveSummarizerFactory } from '../../src/engines/builtin/extractive-summarizer.js';
import { pocketsphinxStreamingFactory } from '../../src/engines/builtin/pocketsphinx/index.js';
import { EngineRegistry, type FactoryResult } from '../../src/engines/registry.js';
import { llmSummarizerFactory } from '../../src/engines/summary/factory.js';
import type { AnyEngine } from '../../src/engines/types.js';
import { connect, type Msg, streamPcm, vt } from '../realtime/support.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { haveSharedAudio } from '../support/audio.js';
import { llamaContext, llamaMissing } from '../support/llama.js';
import { longRecording, PCM_BYTES_PER_SECOND } from '../support/long-recording.js';
import { newBroadcast, openViewer, realKey } from './support.js';

const LLM_ENV = { PARLEY_SUMMARY_TEMPLATE_ENGINE: 'llm', PARLEY_SUMMARY_MAX_TOKENS: '64', PARLEY_SUMMARY_TIME_LIMIT_MS: '600000' };
const missing = await llamaMissing();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const METRICS_TOKEN = 'catch-up-metrics-token';

async function engines(): Promise<EngineRegistry> {
  const ctx = llamaContext(LLM_ENV);
  const out: AnyEngine[] = [];
  for (const f of [llmSummarizerFactory, extractiveSummarizerFactory, apertiumFactory, pocketsphinxStreamingFactory]) {
    const e: FactoryResult = await f.create(ctx);
    if ('unavailable' in e) throw new Error(`${f.id} unavailable: ${e.unavailable}`);
    out.push(...(Array.isArray(e) ? e : [e]));
  }
  return EngineRegistry.fromEngines(out);
}

/** parley_engine_duration_seconds_count of summarize by engine, from /metrics. */
async function summarizeCounts(t: TestApp): Promise<Record<string, number>> {
  const r = await api(t.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const out: Record<string, number> = {};
  for (const m of String(r.body).matchAll(/^parley_engine_duration_seconds_count\{([^}]*)\} (\d+)/gm)) {
    const labels = m[1]!;
    if (!labels.includes('operation="summarize"')) continue;
    const engine = /engine="([^"]+)"/.exec(labels)![1]!;
    out[engine] = (out[engine] ?? 0) + Number(m[2]);
  }
  return out;
}

describe.skipIf(Boolean(missing) || !haveSharedAudio())('catch-up summaries by the local LLM (PARLEY_SUMMARY_TEMPLATE_ENGINE=llm)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      engines: await engines(),
      env: {
        ...LLM_ENV,
        PARLEY_METRICS_TOKEN: METRICS_TOKEN,
        PARLEY_BROADCAST_CATCH_UP_INTERVAL_SECONDS: '3600',
        PARLEY_BROADCAST_HOST_LEASE_SECONDS: '600',
      },
    });
  }, 120_000);
  afterAll(() => t?.close());

  it('a pause has the model summarize what was said; a joiner gets it in Spanish before the captions', async () => {
    const k = await realKey(t);
    await t.app.deps.billing.grantCredit({ accountId: k.accountId, points: 200, pool: 'account' });
    const b = await newBroadcast(t, k.key, { transcription_languages: ['en'], translation_languages: ['es'] });
    const ticket = await api(t.url, 'POST', '/api/v1/auth/ticket', { key: k.key });
    const host = await connect(t, [`ticket.${ticket.body.data.ticket}`]);
    host.send(vt('start', { type: 'broadcast', broadcast_token: b.token, audio_format: 'pcm' }));
    expect((await host.next((m: Msg) => m.data?.action === 'session_started' || m.type === 'error', 30_000)).data.action).toBe(
      'session_started',
    );
    const finals = () => host.messages.filter((m) => m.data?.action === 'result' && m.data.origin?.is_final && m.data.origin.text);
    await streamPcm(host, longRecording(40).subarray(0, 40 * PCM_BYTES_PER_SECOND), 4);
    for (const end = Date.now() + 120_000; finals().length < 3 && Date.now() < end; ) await sleep(500);
    expect(finals().length).toBeGreaterThanOrEqual(3);
    await sleep(3_000);
    expect(await summarizeCounts(t)).toEqual({});

    host.send(vt('pause'));
    // The model's run (on a loaded machine: up to minutes), then a joiner.
    for (const end = Date.now() + 300_000; !(await summarizeCounts(t))['llm-summarizer'] && Date.now() < end; ) await sleep(2_000);
    await sleep(6_000);
    const viewer = await openViewer(t, b.token, '?lang=es');
    const catchUp = (await viewer.next((e) => e.event === 'catch_up', 20_000)).data;
    expect(viewer.events[0]!.event).toBe('connected');
    expect(catchUp.language).toBe('es');
    expect(catchUp.text.trim().length).toBeGreaterThan(10);
    expect(detect(catchUp.text)).toBe('es');
    // Plain text: the model's Markdown headings and emphasis are gone.
    expect(catchUp.text).not.toMatch(/^#|\*\*/m);
    await viewer.next((e) => e.event === 'origin', 20_000);
    // The LLM wrote it; the extractive summarizer was never asked.
    const counts = await summarizeCounts(t);
    expect(counts['llm-summarizer']).toBe(1);
    expect(counts['builtin/extractive-summarizer']).toBeUndefined();
    viewer.close();
    host.send(vt('stop'));
    await host.next((m) => m.data?.action === 'task_complete', 120_000);
    host.ws.close();
  }, 600_000);
});
