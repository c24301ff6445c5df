/**
 * Every import error the spec lists, provoked through real HTTP: refusals answer the spec's
 * code and leave nothing stored (no task, no import row, no blob, no temp file); failures
 * found after the upload end the import `failed` with `error_code`, announce recording.failed
 * then import.failed, and charge nothing.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import type { CreatedKey } from '../../src/keys/service.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { until } from '../support/until.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { type SseEvent, upload, watchSse } from './support.js';

const PLANS = JSON.stringify({
  noimport: { features: { transcribe: true }, oneoff_features: { summary: true }, limits: {} },
  tight: {
    features: { transcribe: true },
    oneoff_features: { import: true },
    limits: { daily_hard_limit_minutes: 1, max_transcription_languages: 2 },
  },
});

const audio = haveSharedAudio()
  ? {
      mp3: convert(JFK, 'mp3'),
      flac: convert(JFK, 'flac', ['-t', '3', '-ar', '16000', '-ac', '1']),
      short: convert(JFK, 'wav', ['-t', '0.4']),
    }
  : null;

describe.skipIf(!audio).each(backends())('import errors (%s)', (backend) => {
  let t: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    t = await startTestApp({ backend, env: { PARLEY_IMPORT_MAX_BYTES: '300000', PARLEY_PLANS: PLANS } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await rx?.close();
  });

  async function funded(points = 100): Promise<CreatedKey> {
    const key = await t.app.deps.keys.createKey({ name: 'k' });
    if (points > 0) await t.app.deps.billing.grantCredit({ accountId: key.account_id, points, pool: 'account' });
    return key;
  }

  /** Nothing of a refused upload is left: rows, blobs, temp files. */
  async function nothingStored(key: CreatedKey) {
    const db = t.app.deps.database.db;
    expect(await db.selectFrom('tasks').select('task_id').where('account_id', '=', key.account_id).execute()).toEqual([]);
    expect(await db.selectFrom('imports').select('import_id').where('account_id', '=', key.account_id).execute()).toEqual([]);
    const tmp = join(t.dataDir, 'tmp', 'imports');
    expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
  }

  async function refused(key: CreatedKey, input: Parameters<typeof upload>[2], status: number, code: string) {
    const res = await upload(t.url, key.api_key, input);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.data.error_code).toBe(code);
    await nothingStored(key);
    return res.body.data;
  }

  it('413 import_file_too_large for a file over the configured limit, and for a declared length far beyond it', async () => {
    const key = await funded();
    const big = Buffer.alloc(400_000, 0);
    big.write('RIFF', 0);
    const e = await refused(key, { file: { bytes: big, name: 'big.wav' } }, 413, 'import_file_too_large');
    expect(e.details.max_bytes).toBe(300_000);
    // A client announcing 600 MB is refused from its headers.
    const res = await fetch(`${t.url}/api/v1/imports`, {
      method: 'POST',
      headers: { 'x-api-key': key.api_key, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(600 * 1024 * 1024) },
      body: '--x--',
    }).catch((err: Error) => err);
    if (!(res instanceof Error)) {
      expect(res.status).toBe(413);
      expect(((await res.json()) as { data: { error_code: string } }).data.error_code).toBe('import_file_too_large');
    }
    await nothingStored(key);
  });

  it('415 import_invalid_format: FLAC, a text file named .mp3, an empty file, a WAV header over garbage', async () => {
    const key = await funded();
    const flac = await refused(key, { file: { path: audio!.flac, name: 'speech.mp3' } }, 415, 'import_invalid_format');
    expect(flac.details.detected).toBe('flac');
    await refused(key, { file: { bytes: Buffer.from('just some text, not audio'), name: 'song.mp3' } }, 415, 'import_invalid_format');
    await refused(key, { file: { bytes: Buffer.alloc(0), name: 'empty.wav' } }, 415, 'import_invalid_format');
    const liar = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEjunk', 'latin1'), Buffer.alloc(2000, 7)]);
    await refused(key, { file: { bytes: liar, name: 'liar.wav' } }, 415, 'import_invalid_format');
  });

  it('422 import_recognition_mode_unsupported for multi_language and multi_channel', async () => {
    const key = await funded();
    for (const mode of ['multi_language', 'multi_channel']) {
      const e = await refused(
        key,
        { file: { path: audio!.mp3 }, fields: { recognition_mode: mode } },
        422,
        'import_recognition_mode_unsupported',
      );
      expect(e.details.valid_values).toEqual(['single', 'multi_speaker']);
    }
  });

  it('422 validation_failed for every malformed field, with the field named (and counts where limits apply)', async () => {
    const key = await funded();
    const f = { path: audio!.mp3 };
    const cases: [Record<string, string>, string][] = [
      [{ transcription_languages: '' }, 'transcription_languages'],
      [{ transcription_languages: '["en-US", "en-US"]' }, 'transcription_languages'],
      [{ transcription_languages: '{"en": 1}' }, 'transcription_languages'],
      [
        { transcription_languages: JSON.stringify(Array.from({ length: 11 }, (_, i) => `e${String.fromCharCode(97 + i)}`)) },
        'transcription_languages',
      ],
      [
        { translation_languages: JSON.stringify(Array.from({ length: 13 }, (_, i) => `e${String.fromCharCode(97 + i)}`)) },
        'translation_languages',
      ],
      [{ translation_languages: '["es", "es"]' }, 'translation_languages'],
      [{ recognition_mode: 'Single' }, 'recognition_mode'],
      [{ summary_template: 'x'.repeat(51) }, 'summary_template'],
      [{ summary_template: 'no-such-template' }, 'summary_template'],
      [{ summary_mode: 'fancy' }, 'summary_mode'],
      [{ summary_mode: 'custom', summary_prompt: 'p'.repeat(3001), summary_prompt_slug: 's' }, 'summary_prompt'],
      [{ summary_mode: 'custom', summary_prompt: 'p', summary_prompt_slug: 's'.repeat(65) }, 'summary_prompt_slug'],
      [{ terminology: '{"en-US": [' }, 'terminology'],
      [{ callback_url: `https://example.com/${'a'.repeat(2048)}` }, 'callback_url'],
      [{ callback_url: 'ftp://example.com/hook' }, 'callback_url'],
      [{ colour: 'blue' }, 'colour'],
    ];
    for (const [fields, field] of cases) {
      const e = await refused(key, { file: f, fields }, 422, 'validation_failed');
      expect(e.details.field, JSON.stringify(fields).slice(0, 80)).toBe(field);
    }
    const counts = [[JSON.stringify(Array.from({ length: 11 }, (_, i) => `e${String.fromCharCode(97 + i)}`)), 11]] as const;
    for (const [langs, n] of counts) {
      const e = await refused(key, { file: f, fields: { transcription_languages: langs } }, 422, 'validation_failed');
      expect(e.details.actual).toBe(n);
    }
    // 501 terms: 422 with the actual count in the message.
    const terms = { 'en-US': Array.from({ length: 501 }, (_, i) => ({ term: `term${i}` })) };
    const e = await refused(key, { file: f, fields: { terminology: JSON.stringify(terms) } }, 422, 'validation_failed');
    expect(e.message).toContain('501');
    // A multipart body cut off in the middle of the file.
    const cut = await fetch(`${t.url}/api/v1/imports`, {
      method: 'POST',
      headers: { 'x-api-key': key.api_key, 'content-type': 'multipart/form-data; boundary=XyZ' },
      body: '--XyZ\r\nContent-Disposition: form-data; name="recognition_mode"\r\n\r\nsingle\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\nID3partial',
    });
    expect(cut.status).toBe(422);
    expect(((await cut.json()) as { data: { error_code: string } }).data.error_code).toBe('validation_failed');
    // Not multipart at all.
    const json = await api(t.url, 'POST', '/api/v1/imports', { key: key.api_key, body: { file: 'x' } });
    expect(json.status).toBe(415);
    expect(json.body.data.error_code).toBe('unsupported_media_type');
    // No file part, and a field sent twice.
    await refused(key, { file: null }, 422, 'validation_failed');
    const form = new FormData();
    form.append('transcription_languages', '["en-US"]');
    form.append('transcription_languages', '["es"]');
    form.append('recognition_mode', 'single');
    form.append('file', new Blob([Buffer.alloc(10)]), 'a.mp3');
    const twice = await fetch(`${t.url}/api/v1/imports`, { method: 'POST', headers: { 'x-api-key': key.api_key }, body: form });
    expect(twice.status).toBe(422);
    expect(((await twice.json()) as { data: { details: { field: string } } }).data.details.field).toBe('transcription_languages');
    await nothingStored(key);
  });

  it('400 summary_mode_field_mismatch for the custom/builtin field rules', async () => {
    const key = await funded();
    const f = { path: audio!.mp3 };
    const mismatches: Record<string, string>[] = [
      { summary_mode: 'custom', summary_prompt_slug: 'mine' },
      { summary_mode: 'custom', summary_prompt: 'Summarize.' },
      { summary_mode: 'custom', summary_prompt: 'Summarize.', summary_prompt_slug: 'mine', summary_template: 'general-summary' },
      { summary_prompt: 'Summarize.' },
      { summary_mode: 'builtin', summary_prompt_slug: 'mine' },
    ];
    for (const fields of mismatches) {
      await refused(key, { file: f, fields }, 400, 'summary_mode_field_mismatch');
    }
  });

  it('402 auth_insufficient_credit at zero balance and 402 stt_quota_exceeded when the estimate is not covered', async () => {
    const empty = await funded(0);
    await refused(empty, { file: { path: audio!.mp3 } }, 402, 'auth_insufficient_credit');
    const poor = await funded(0.5); // one minute costs 1 point
    const e = await refused(poor, { file: { path: audio!.mp3 } }, 402, 'stt_quota_exceeded');
    expect(e.details).toMatchObject({ budget_scope: 'account_credit', remaining_budget: 0.5 });
  });

  it('403 plan_feature_not_allowed, 402 plan_daily_limit_reached and the plan language cap; check-quota agrees', async () => {
    const noImport = await funded(0);
    await t.app.deps.plans.setPlan(noImport.account_id, { mode: 'unlimited-plan', planName: 'noimport' });
    await refused(noImport, { file: { path: audio!.mp3 } }, 403, 'plan_feature_not_allowed');
    const q1 = await api(t.url, 'POST', '/api/v1/imports/check-quota', { key: noImport.api_key, body: { duration_ms: 60_000 } });
    expect(q1.body.data).toMatchObject({ allowed: false, reason: 'plan_not_allowed', is_unlimited: true, remain_quota: null });

    const tight = await funded(0);
    const p = { accountId: tight.account_id, keyId: tight.key_id };
    await t.app.deps.plans.setPlan(tight.account_id, { mode: 'unlimited-plan', planName: 'tight' });
    const e = await refused(
      tight,
      { file: { path: audio!.mp3 }, fields: { transcription_languages: '["en-US","es","fr"]' } },
      422,
      'validation_failed',
    );
    expect(e.details).toMatchObject({ field: 'transcription_languages', max: 2, received: 3 });
    const u = await t.app.deps.billing.startUsage(p, { type: 'recording' });
    await t.app.deps.billing.charge(u.id, { idempotencyKey: 'm0', points: 1, minutes: 1 });
    await t.app.deps.billing.endUsage(u.id);
    await refused(tight, { file: { path: audio!.mp3 } }, 402, 'plan_daily_limit_reached');
    const q2 = await api(t.url, 'POST', '/api/v1/imports/check-quota', { key: tight.api_key, body: { duration_ms: 60_000 } });
    expect(q2.body.data).toMatchObject({ allowed: false, reason: 'plan_daily_limit_reached' });
  });

  it('a summary needs the plan summary feature (403) and a custom prompt a language model (503 llm_init_failed)', async () => {
    const noSummary = await funded(0);
    await t.app.deps.plans.setPlan(noSummary.account_id, { mode: 'unlimited-plan', planName: 'tight' });
    const e = await refused(
      noSummary,
      { file: { path: audio!.mp3 }, fields: { summary_template: 'general-summary' } },
      403,
      'plan_feature_not_allowed',
    );
    expect(e.details).toMatchObject({ field: 'summary_template', plan: 'tight' });
    const key = await funded(100);
    const custom = { summary_mode: 'custom', summary_prompt: 'List the risks.', summary_prompt_slug: 'risks' };
    const c = await refused(key, { file: { path: audio!.mp3 }, fields: custom }, 503, 'llm_init_failed');
    // This app loads no summarizer at all: the refusal says so.
    expect(c.message).toMatch(/^Summaries are not available: no summarizer/);
  });

  it('check-quota: minutes rounded up, estimate from the price table, insufficient_credit, 422 outside the bounds', async () => {
    const key = await funded(2.5);
    const ok = await api(t.url, 'POST', '/api/v1/imports/check-quota', { key: key.api_key, body: { duration_ms: 60_001 } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({
      allowed: true,
      reason: null,
      is_unlimited: false,
      remain_quota: 2.5,
      duration_minutes: 2,
      estimated_points: 2,
      estimate: { recognition: 2, translation: 0, diarization: 0, summary: 0, total: 2 },
    });
    const no = await api(t.url, 'POST', '/api/v1/imports/check-quota', { key: key.api_key, body: { duration_ms: 180_000 } });
    expect(no.body.data).toMatchObject({ allowed: false, reason: 'insufficient_credit', duration_minutes: 3, estimated_points: 3 });
    for (const duration_ms of [999, 36_000_001, 1.5, '60000', null]) {
      const bad = await api(t.url, 'POST', '/api/v1/imports/check-quota', { key: key.api_key, body: { duration_ms } });
      expect(bad.status).toBe(422);
      expect(bad.body.data.error_code).toBe('validation_failed');
    }
    const broken = await api(t.url, 'POST', '/api/v1/imports/check-quota', { key: key.api_key, body: '{"duration_ms":' });
    expect(broken.status).toBeLessThan(500);
    await t.app.deps.plans.setPlan(key.account_id, 'unlimited');
    const unl = await api(t.url, 'POST', '/api/v1/imports/check-quota', { key: key.api_key, body: { duration_ms: 180_000 } });
    expect(unl.body.data).toMatchObject({ allowed: true, is_unlimited: true, remain_quota: null });
  });

  it("404 import_not_found for unknown, malformed and other accounts' ids", async () => {
    const a = await funded();
    const b = await funded();
    const res = await upload(t.url, a.api_key, { file: { path: audio!.short } });
    expect(res.status).toBe(202);
    for (const [key, id] of [
      [b, res.body.data.import_id],
      [a, '00000000-0000-4000-8000-000000000000'],
      [a, 'not-a-uuid'],
      [a, '..%2F..%2Fetc'],
    ] as const) {
      const r = await api(t.url, 'GET', `/api/v1/imports/${id}`, { key: key.api_key });
      expect(r.status).toBe(404);
      expect(r.body.data.error_code).toBe('import_not_found');
    }
    const sse = await fetch(`${t.url}/api/v1/sse/imports/${res.body.data.import_id}/progress`, { headers: { 'x-api-key': b.api_key } });
    expect(sse.status).toBe(404);
  });

  it('a 0.4 s file ends failed with import_duration_out_of_range: SSE failed event, recording.failed then import.failed, no charge', async () => {
    const key = await funded();
    const res = await upload(t.url, key.api_key, { file: { path: audio!.short, name: 'blip.wav' }, fields: { callback_url: rx.url } });
    expect(res.status).toBe(202);
    const id = res.body.data.import_id as string;
    const events = await watchSse(`${t.url}/api/v1/sse/imports/${id}/progress`, { 'x-api-key': key.api_key }).done;
    expect(events.at(-1)).toMatchObject({
      event: 'failed',
      data: { import_id: id, status: 'failed', error_code: 'import_duration_out_of_range', error_message: expect.any(String) },
    });
    const got = await api(t.url, 'GET', `/api/v1/imports/${id}`, { key: key.api_key });
    expect(got.body.data).toMatchObject({ status: 'failed', error_code: 'import_duration_out_of_range', task_id: null });
    expect(got.body.data.error_message).not.toMatch(/ms outside/); // general text, no internal detail
    await until(
      () => rx.received.filter((r) => r.json?.data?.import_id === id || r.json?.data?.task_id).length >= 2,
      10_000,
      'failure webhooks',
    );
    const mine = rx.received.filter((r) => ['recording.failed', 'import.failed'].includes(r.json.event));
    expect(mine.map((r) => r.json.event)).toEqual(['recording.failed', 'import.failed']);
    expect(mine[1]!.json.data).toEqual({
      import_id: id,
      error_code: 'import_duration_out_of_range',
      error_message: got.body.data.error_message,
    });
    const usage = await api(t.url, 'GET', '/api/v1/me/usage', { key: key.api_key });
    expect(usage.body.data).toEqual([]);
    const tasks = await api(t.url, 'GET', '/api/v1/tasks?status=all', { key: key.api_key });
    expect(tasks.body.data.tasks.map((x: { processing_status: string }) => x.processing_status)).toEqual(['failed']);
  });

  it('file names: directories and control characters dropped, 255 characters at most; the title is the name without extension', async () => {
    const key = await funded();
    const res = await upload(t.url, key.api_key, { file: { path: audio!.short, name: '../../etc/pass\u0007wd.wav' } });
    expect(res.body.data.original_filename).toBe('passwd.wav');
    const long = await upload(t.url, key.api_key, { file: { path: audio!.short, name: `${'名'.repeat(300)}.wav` } });
    expect([...long.body.data.original_filename]).toHaveLength(255);
    const tasks = await api(t.url, 'GET', '/api/v1/tasks?status=all', { key: key.api_key });
    expect(tasks.body.data.tasks.map((x: { title: string }) => [...x.title].length).sort()).toEqual([6, 60]);
  });

  it('lists imports newest first with page, per_page and status; 422 on bad paging', async () => {
    const key = await funded();
    for (let i = 0; i < 6; i++)
      expect((await upload(t.url, key.api_key, { file: { path: audio!.short, name: `n${i}.wav` } })).status).toBe(202);
    const p1 = await api(t.url, 'GET', '/api/v1/imports?per_page=5', { key: key.api_key });
    expect(p1.body.meta).toEqual({ current_page: 1, last_page: 2, per_page: 5, total: 6 });
    expect(p1.body.data.map((i: { original_filename: string }) => i.original_filename)).toEqual([
      'n5.wav',
      'n4.wav',
      'n3.wav',
      'n2.wav',
      'n1.wav',
    ]);
    const p2 = await api(t.url, 'GET', '/api/v1/imports?per_page=5&page=2', { key: key.api_key });
    expect(p2.body.data.map((i: { original_filename: string }) => i.original_filename)).toEqual(['n0.wav']);
    for (const q of ['per_page=4', 'per_page=21', 'page=0', 'page=x', 'status=done']) {
      const r = await api(t.url, 'GET', `/api/v1/imports?${q}`, { key: key.api_key });
      expect(r.status, q).toBe(422);
    }
  });
});

/** Uploads jfk as mp3 to an app started with `env` and returns the progress events and the app. */
async function importOn(env: Record<string, string>, check: (events: SseEvent[], t: TestApp, key: string) => Promise<void>) {
  // A process with only some roles and no other process: its own bus (no REDIS_URL needed).
  const t = await startTestApp({ env, bus: env.PARLEY_ROLES ? new InProcessBus() : undefined });
  try {
    const key = await t.app.deps.keys.createKey({ name: 'k' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
    const res = await upload(t.url, key.api_key, { file: { path: audio!.mp3 } });
    expect(res.status).toBe(202);
    const events = await watchSse(`${t.url}/api/v1/sse/imports/${res.body.data.import_id}/progress`, { 'x-api-key': key.api_key }).done;
    await check(events, t, key.api_key);
  } finally {
    await t.close();
  }
}

describe.skipIf(!audio)('import longer than the configured maximum', () => {
  it('ends failed with import_duration_out_of_range (the 10-hour bound, scaled down by configuration)', async () => {
    await importOn({ PARLEY_IMPORT_MAX_DURATION_MS: '5000' }, async (events, t, key) => {
      expect(events.at(-1)).toMatchObject({ event: 'failed', data: { error_code: 'import_duration_out_of_range' } });
      const q = await api(t.url, 'POST', '/api/v1/imports/check-quota', { key, body: { duration_ms: 5001 } });
      expect(q.status).toBe(422);
    });
  });
});

describe.skipIf(!audio)('PROCESSING_TIMEOUT (no worker running)', () => {
  it('an import no worker starts fails with PROCESSING_TIMEOUT after the configured time', async () => {
    await importOn({ PARLEY_ROLES: 'api', PARLEY_IMPORT_START_TIMEOUT_MS: '300' }, async (events) => {
      expect(events.map((e) => e.event)).toEqual(['progress', 'failed']);
      expect(events[1]!.data.error_code).toBe('PROCESSING_TIMEOUT');
      expect(events[0]!.data).toMatchObject({ status: 'pending', progress: 0 });
    });
  });
});

describe.skipIf(!audio)('progress stream safety net', () => {
  it('ends with the final state even when its event never reaches the bus (re-reads the record)', async () => {
    const t = await startTestApp({ env: { PARLEY_ROLES: 'api' }, bus: new InProcessBus() });
    try {
      const key = await t.app.deps.keys.createKey({ name: 'k' });
      await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
      const res = await upload(t.url, key.api_key, { file: { path: audio!.mp3 } });
      const id = res.body.data.import_id as string;
      const watch = watchSse(`${t.url}/api/v1/sse/imports/${id}/progress`, { 'x-api-key': key.api_key });
      await until(() => watch.events.length === 1, 5000, 'first event');
      // Fail it behind the stream's back: no bus event is published.
      await t.app.deps.database.db
        .updateTable('imports')
        .set({ status: 'failed', error_code: 'internal_error', error_message: 'x' })
        .where('import_id', '=', id)
        .execute();
      const events = await watch.done;
      expect(events.map((e) => e.event)).toEqual(['progress', 'failed']);
    } finally {
      await t.close();
    }
  }, 20_000);
});

describe.skipIf(!audio)('upload rate per account', () => {
  it('429 too_many_requests with Retry-After past PARLEY_IMPORT_UPLOADS_PER_MINUTE, before the file is read', async () => {
    const t = await startTestApp({ env: { PARLEY_IMPORT_UPLOADS_PER_MINUTE: '2', PARLEY_ROLES: 'api' }, bus: new InProcessBus() });
    try {
      const key = await t.app.deps.keys.createKey({ name: 'k' });
      await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
      for (let i = 0; i < 2; i++) expect((await upload(t.url, key.api_key, { file: { path: audio!.short } })).status).toBe(202);
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(10)]), 'a.wav');
      const third = await fetch(`${t.url}/api/v1/imports`, { method: 'POST', headers: { 'x-api-key': key.api_key }, body: form });
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await third.json()) as { data: { error_code: string } }).data.error_code).toBe('too_many_requests');
      const other = await t.app.deps.keys.createKey({ name: 'other' });
      await t.app.deps.billing.grantCredit({ accountId: other.account_id, points: 10, pool: 'account' });
      expect((await upload(t.url, other.api_key, { file: { path: audio!.short } })).status).toBe(202);
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(!audio)('a task whose import is still processing', () => {
  it('cannot be deleted or force-failed (422 invalid_processing_status)', async () => {
    const t = await startTestApp({ env: { PARLEY_ROLES: 'api' }, bus: new InProcessBus() }); // no worker: the import stays pending
    try {
      const key = await t.app.deps.keys.createKey({ name: 'k' });
      await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 10, pool: 'account' });
      expect((await upload(t.url, key.api_key, { file: { path: audio!.short } })).status).toBe(202);
      const task = (await api(t.url, 'GET', '/api/v1/tasks?status=active', { key: key.api_key })).body.data.tasks[0];
      expect(task.processing_status).toBe('importing');
      for (const [method, path] of [
        ['DELETE', `/api/v1/tasks/${task.task_id}`],
        ['POST', `/api/v1/tasks/${task.task_id}/force-fail`],
      ] as const) {
        const r = await api(t.url, method, path, { key: key.api_key });
        expect(r.status, path).toBe(422);
        expect(r.body.data.error_code).toBe('invalid_processing_status');
      }
    } finally {
      await t.close();
    }
  });
});
