/**
 * /metrics (issue 19): Prometheus text, protected by a bearer token or served only on a
 * listener of its own; after real activity (HTTP requests, an SSE summary stream with the
 * built-in summarizer and its charge, a translation, a TTS sample, a waiting job, a live
 * session) the series move.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineRegistry } from '../../src/engines/registry.js';
import { ttsEngines } from '../broadcasts/support.js';
import { funded, MEETING, openStream, seed, summaryEngines } from '../summaries/support.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';

const TOKEN = 'scrape-me-0123456789';

/** The value of a series: `name` with every label of `labels` (others may be present). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

async function scrape(url: string, token: string | undefined = TOKEN) {
  const res = await fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe.each(backends())('metrics on the main port, behind a bearer token (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    const summary = await summaryEngines();
    const tts = await ttsEngines();
    const engines = EngineRegistry.fromEngines([
      ...summary.enginesOf('summarizer'),
      ...summary.enginesOf('translator'),
      ...tts.enginesOf('tts'),
    ]);
    t = await startTestApp({ backend, engines, env: { PARLEY_METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => t?.close());

  it('refuses a scrape without the token or with a wrong one (401 metrics_unauthorized)', async () => {
    for (const token of [undefined, 'wrong-token', `${TOKEN}x`]) {
      const r = await api(t.url, 'GET', '/metrics', token ? { headers: { authorization: `Bearer ${token}` } } : {});
      expect(r.status).toBe(401);
      expect(r.body.data.error_code).toBe('metrics_unauthorized');
    }
  });

  it('series move after real activity', async () => {
    const before = await scrape(t.url);
    expect(before.status).toBe(200);
    expect(before.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const versionRoute = { method: 'GET', route: '/api/v1/version', status: '200' };
    const versionBefore = sample(before.text, 'parley_http_requests_total', versionRoute) ?? 0;

    // HTTP
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.url}/api/v1/version`)).status).toBe(200);
    // An SSE summary with the built-in summarizer, charged to a funded key.
    const f = await funded(t, 50);
    const stream = await openStream(`${t.url}/api/v1/sse/summary`, {
      method: 'POST',
      key: f.key,
      body: { text: MEETING.join(' '), mode: 'builtin', template: 'general-summary' },
    });
    expect(stream.status).toBe(200);
    await stream.all();
    // Translation: a retranslation of a stored transcript (Apertium).
    const task = await seed(t, f.principal, ['Good morning everyone, the launch is in March.']);
    const re = await openStream(`${t.url}/api/v1/sse/retranslate/${task.taskId}?targetLang=es`, { key: f.key });
    expect(re.status).toBe(200);
    await re.all();
    // TTS: a voice sample (eSpeak NG).
    const voices = await api(t.url, 'GET', '/api/v1/tts/voices?language=en', { key: f.key });
    const sampleRes = await fetch(`${t.url}${voices.body.data.voices[0].sample_url}`, { headers: { 'x-api-key': f.key } });
    expect(sampleRes.status).toBe(200);
    await sampleRes.arrayBuffer();
    // A job nobody works yet, and a live session recording.
    await t.app.deps.jobs.enqueue('metrics-test-waiting', { n: 1 });
    await t.app.deps.tasks.store.createTask({
      accountId: f.principal.accountId,
      keyId: f.principal.keyId,
      title: 'Live',
      type: 'transcribe',
      typeSource: 'realtime',
      recognitionMode: 'single',
      transcriptionLanguages: ['en-US'],
      translationLanguages: null,
      durationMs: 0,
      processingStatus: 'recording',
    });

    const after = await scrape(t.url);
    expect(after.status).toBe(200);
    const m = after.text;
    expect(sample(m, 'parley_http_requests_total', versionRoute)).toBe(versionBefore + 3);
    expect(sample(m, 'parley_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/version' })).toBeGreaterThanOrEqual(3);
    expect(sample(m, 'parley_sse_streams_opened_total', { route: '/api/v1/sse/summary' })).toBe(1);
    expect(sample(m, 'parley_sse_streams_closed_total', { route: '/api/v1/sse/summary' })).toBe(1);
    expect(sample(m, 'parley_sse_streams_open', { route: '/api/v1/sse/summary' })).toBe(0);
    expect(sample(m, 'parley_http_requests_total', { method: 'POST', route: '/api/v1/sse/summary', status: '200' })).toBe(1);
    expect(
      sample(m, 'parley_engine_duration_seconds_count', { kind: 'summarizer', operation: 'summarize', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(m, 'parley_engine_duration_seconds_count', { kind: 'translator', operation: 'translate', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(m, 'parley_engine_duration_seconds_count', { kind: 'tts', operation: 'synthesize', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(m, 'parley_credit_charged_points_total', { type: 'summary' })).toBeGreaterThan(0);
    expect(sample(m, 'parley_credit_charged_points_total', { type: 'retranslate' })).toBeGreaterThan(0);
    expect(sample(m, 'parley_jobs_waiting', { name: 'metrics-test-waiting' })).toBe(1);
    expect(sample(m, 'parley_jobs_oldest_waiting_seconds', { name: 'metrics-test-waiting' })).toBeGreaterThanOrEqual(0);
    expect(sample(m, 'parley_live_sessions', { status: 'recording' })).toBe(1);
    expect(sample(m, 'parley_webhook_deliveries', { status: 'failed' })).toBe(0);
    expect(sample(m, 'parley_process_resident_memory_bytes')).toBeGreaterThan(0);
    // Every series the Grafana dashboard queries exists.
    const dashboard = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'grafana-dashboard.json'), 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const names = dashboard.panels.flatMap((p) => p.targets.flatMap((x) => x.expr.match(/parley_[a-z0-9_]+/g) ?? []));
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect(m, name).toContain(`# HELP ${name.replace(/_(bucket|count|sum)$/, '')} `);
    // Unknown paths share one series (no series per raw URL).
    await fetch(`${t.url}/no/such/path/123`);
    expect(sample((await scrape(t.url)).text, 'parley_http_requests_total', { route: '(unmatched)', status: '404' })).toBe(1);
  });
});

describe('metrics on a listener of their own', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PARLEY_METRICS_LISTEN: '127.0.0.1:0', PARLEY_METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => t?.close());

  it('serves /metrics there only, with the token; the main port answers 404', async () => {
    const port = t.app.deps.metricsPort;
    expect(port).toBeGreaterThan(0);
    const own = `http://127.0.0.1:${port}`;
    await fetch(`${t.url}/api/v1/version`);
    const ok = await scrape(own);
    expect(ok.status).toBe(200);
    expect(sample(ok.text, 'parley_http_requests_total', { route: '/api/v1/version', status: '200' })).toBe(1);
    const refused = await scrape(own, 'nope');
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text).data.error_code).toBe('metrics_unauthorized');
    expect((await fetch(`${own}/other`)).status).toBe(404);
    const main = await api(t.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(main.status).toBe(404);
    expect(main.body.data.error_code).toBe('not_found');
  });
});

describe('metrics off (neither token nor listener)', () => {
  it('/metrics is not served', async () => {
    const t = await startTestApp();
    try {
      const r = await api(t.url, 'GET', '/metrics');
      expect(r.status).toBe(404);
      expect(r.body.data.error_code).toBe('not_found');
    } finally {
      await t.close();
    }
  });

  it('a malformed PARLEY_METRICS_LISTEN is refused at start', async () => {
    await expect(startTestApp({ env: { PARLEY_METRICS_LISTEN: 'localhost' } })).rejects.toThrow(/PARLEY_METRICS_LISTEN must be host:port/);
  });
});
