/**
 * Two extensions a person importing files needs (issue 31): the quota check prices the whole
 * import (recognition, translation, diarization, summary: the `estimate` object) and refuses
 * what the upload would refuse; a waiting import says where it is in the queue
 * (`queue_position`) on GET /imports/{id}, the list, the upload's 202 and the progress
 * stream's first event. Real HTTP against an api-only app (no worker: imports stay pending).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { fundedKey, upload, watchSse } from './support.js';

const short = haveSharedAudio() ? convert(JFK, 'wav', ['-t', '2']) : null;

describe.each(backends())('check-quota estimate (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ backend });
  }, 60_000);
  afterAll(async () => t?.close());

  const check = (key: string, body: unknown) => api(t.url, 'POST', '/api/v1/imports/check-quota', { key, body });

  it('prices every part from the price table; the spec-only request gets recognition alone', async () => {
    const key = await fundedKey(t, 100);
    // 60_001 ms bills 2 minutes: recognition 2 x 1, translation 2 x 2 languages x 0.5, diarization 2 x 0.5, summary 5.
    const full = await check(key.api_key, {
      duration_ms: 60_001,
      translation_languages: ['es', 'fr'],
      recognition_mode: 'multi_speaker',
      summary: true,
    });
    expect(full.status).toBe(200);
    expect(full.body.data).toMatchObject({ allowed: true, duration_minutes: 2, estimated_points: 2 });
    expect(full.body.data.estimate).toEqual({ recognition: 2, translation: 2, diarization: 1, summary: 5, total: 10 });
    const plain = await check(key.api_key, { duration_ms: 60_001 });
    expect(plain.body.data.estimate).toEqual({ recognition: 2, translation: 0, diarization: 0, summary: 0, total: 2 });
    expect(plain.body.data.estimated_points).toBe(2);
  });

  it('allowed follows what the upload checks (recognition, translation, diarization), not recognition alone', async () => {
    const key = await fundedKey(t, 4.5);
    const body = { duration_ms: 60_001, translation_languages: ['es', 'fr'], recognition_mode: 'multi_speaker' };
    // 2 points of recognition are covered, the 5 the upload asks for are not.
    expect((await check(key.api_key, { duration_ms: 60_001 })).body.data).toMatchObject({ allowed: true, reason: null });
    expect((await check(key.api_key, body)).body.data).toMatchObject({
      allowed: false,
      reason: 'insufficient_credit',
      estimated_points: 2,
    });
    // The summary is charged when it is made: 4.5 points cover the import row (2 + 1) though not the 8 in all.
    const one = await check(key.api_key, { duration_ms: 60_001, translation_languages: ['es'], summary: true });
    expect(one.body.data).toMatchObject({ allowed: true, estimate: { total: 8, summary: 5 } });
  });

  it('422 validation_failed naming the field for each wrong extension value', async () => {
    const key = await fundedKey(t, 10);
    const cases: [unknown, string][] = [
      [{ duration_ms: 60_000, translation_languages: 'es' }, 'translation_languages'],
      [{ duration_ms: 60_000, translation_languages: [1] }, 'translation_languages'],
      [{ duration_ms: 60_000, translation_languages: ['es', 'es'] }, 'translation_languages'],
      [{ duration_ms: 60_000, translation_languages: Array.from({ length: 13 }, (_, i) => `x${i}`) }, 'translation_languages'],
      [{ duration_ms: 60_000, recognition_mode: 'multi_channel' }, 'recognition_mode'],
      [{ duration_ms: 60_000, summary: 'yes' }, 'summary'],
      [{ translation_languages: ['es'] }, 'duration_ms'],
    ];
    for (const [body, field] of cases) {
      const r = await check(key.api_key, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.data.error_code).toBe('validation_failed');
      expect(r.body.data.details.field).toBe(field);
    }
  });
});

describe.skipIf(!short).each(backends())('queue position of waiting imports (%s)', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    // An api-only process runs no import worker: every upload stays pending.
    t = await startTestApp({ backend, env: { PARLEY_ROLES: 'api' }, bus: new InProcessBus() });
  }, 60_000);
  afterAll(async () => t?.close());

  it('accounts take turns: A1, then B1, then A2; a started import uses its account’s turn', async () => {
    const a = await fundedKey(t, 100);
    const b = await fundedKey(t, 100);
    const up = async (key: string) => {
      const r = await upload(t.url, key, { file: { path: short! } });
      expect(r.status).toBe(202);
      return r.body.data as { import_id: string; status: string; queue_position: number | null };
    };
    const a1 = await up(a.api_key);
    expect(a1).toMatchObject({ status: 'pending', queue_position: 1 });
    const a2 = await up(a.api_key);
    expect(a2.queue_position).toBe(2);
    // B's first import comes before A's second: it is B's first turn.
    const b1 = await up(b.api_key);
    expect(b1.queue_position).toBe(2);
    const place = async (key: string, id: string) => (await api(t.url, 'GET', `/api/v1/imports/${id}`, { key })).body.data.queue_position;
    expect(await place(a.api_key, a1.import_id)).toBe(1);
    expect(await place(a.api_key, a2.import_id)).toBe(3);
    expect(await place(b.api_key, b1.import_id)).toBe(2);
    const list = (await api(t.url, 'GET', '/api/v1/imports', { key: a.api_key })).body.data as {
      import_id: string;
      queue_position: number;
    }[];
    expect(list.map((i) => [i.import_id, i.queue_position])).toEqual([
      [a2.import_id, 3],
      [a1.import_id, 1],
    ]);

    // The progress stream's first event says the same.
    const sse = watchSse(`${t.url}/api/v1/sse/imports/${a2.import_id}/progress`, { 'x-api-key': a.api_key });
    await expect.poll(() => sse.events.length).toBeGreaterThan(0);
    expect(sse.events[0]).toMatchObject({ event: 'progress', data: { status: 'pending', progress: 0, queue_position: 3 } });
    sse.done.catch(() => {}); // closing aborts the read
    sse.close();

    // A1 starts (what a worker's claim does): it has no place any more, and it is A's turn
    // taken, so B1 goes next, then A2.
    await t.app.deps.imports.store.start(a1.import_id);
    const started = (await api(t.url, 'GET', `/api/v1/imports/${a1.import_id}`, { key: a.api_key })).body.data;
    expect(started).toMatchObject({ status: 'processing', queue_position: null });
    expect(await place(b.api_key, b1.import_id)).toBe(1);
    expect(await place(a.api_key, a2.import_id)).toBe(2);
  });
});
