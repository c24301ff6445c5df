/**
 * Floating-subtitle access over real HTTP (spec "Floating subtitle access", "Tokens",
 * Limits): owner tokens, shares, the public exchange and every error code, on SQLite and
 * PostgreSQL, with a movable clock for the sliding token expiry and share expiry. A
 * recording is "streaming" once its session stream has published (the real SessionStreams
 * of the app, as a live session does); the live-session suites cover real sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubtitleStore } from '../../src/subtitles/store.js';
import { TaskStore } from '../../src/tasks/store.js';
import { clock, realKey } from '../billing/support.js';
import { api, backends, startTestApp, type TestApp } from '../support/app.js';
import { enableShare, exchange, openSubtitles, ownerToken } from './support.js';

const PLANS = JSON.stringify({
  captions: { features: { transcribe: true }, limits: {} },
  // Real-time translation sold without the audience window, and the window without translation.
  nowindow: { features: { transcribe: true, translation: true, floating_subtitles: false } },
  windowonly: { features: { transcribe: true, floating_subtitles: true } },
  // Written before floating_subtitles existed: it follows translation.
  older: { features: { transcribe: true, translation: true } },
});

describe.each(backends())('floating subtitle access (%s)', (backend) => {
  const c = clock('2026-11-23T10:00:00.000Z');
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof realKey>>;
  let other: Awaited<ReturnType<typeof realKey>>;

  beforeAll(async () => {
    t = await startTestApp({ backend, now: c.now, env: { PARLEY_PLANS: PLANS } });
    owner = await realKey(t);
    other = await realKey(t);
  });
  afterAll(() => t?.close());

  /** A live recording of `who`; streaming unless told otherwise (its session stream has published). */
  async function recording(who = owner, opts: { streaming?: boolean; typeSource?: 'realtime' | 'import' } = {}) {
    const task = await new TaskStore(t.app.deps.database).createTask({
      accountId: who.accountId,
      keyId: who.keyId,
      title: 'Live',
      nameSource: 'user',
      type: 'transcribe',
      typeSource: opts.typeSource ?? 'realtime',
      recognitionMode: 'single',
      processingStatus: 'recording',
      transcriptionLanguages: ['en'],
      translationLanguages: ['es'],
    });
    if (opts.streaming !== false) {
      const pub = await t.app.deps.streams.publisher(task.taskId, 1);
      pub.publish({ event: 'status', data: { status: 'started' } });
      await new Promise((r) => setTimeout(r, 50));
    }
    return task.taskId;
  }

  async function endRecording(taskId: string) {
    await new TaskStore(t.app.deps.database).setStatus(taskId, 'uploading');
  }

  it('owner feed token: 48 characters, 900 s; it opens the stream of its own recording only', async () => {
    const id = await recording();
    const r = await ownerToken(t.url, owner.key, id);
    expect(r.status).toBe(200);
    expect(r.body.data.token).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(r.body.data.expires_in).toBe(900);
    const sub = await openSubtitles(t.url, id, r.body.data.token);
    expect(sub.status).toBe(200);
    expect((await sub.next((e) => e.event === 'connected')).data).toEqual({
      task_id: id,
      role: 'owner',
      transcription_languages: ['en'],
      translation_languages: ['es'],
    });
    expect((await sub.next((e) => e.event === 'viewers')).data).toEqual({ count: 0, max: 10 });
    sub.close();
    // Bound to its recording: another recording's stream refuses it.
    const id2 = await recording();
    const wrong = await openSubtitles(t.url, id2, r.body.data.token);
    expect([wrong.status, wrong.body]).toEqual([401, { error: 'feed_token_invalid' }]);
  });

  it('errors in the {error: <code>} shape: 401, 404, 425, 410, 403 plan_feature_not_allowed', async () => {
    const id = await recording();
    expect(await ownerToken(t.url, `svc_${'z'.repeat(32)}`, id)).toMatchObject({
      status: 401,
      body: { error: 'auth_invalid_api_key' },
    });
    expect(await api(t.url, 'POST', `/api/v1/auth/tasks/${id}/subtitle-feed-token`)).toMatchObject({
      status: 401,
      body: { error: 'auth_missing_api_key' },
    });
    // A foreign recording looks exactly like a missing one.
    for (const [key, task] of [
      [other.key, id],
      [owner.key, '5d6f0a8e-1111-4222-8333-944455556666'],
      [owner.key, 'not-a-uuid'],
    ] as const) {
      expect(await ownerToken(t.url, key, task)).toMatchObject({ status: 404, body: { error: 'recording_not_found' } });
      expect(await enableShare(t.url, key, task)).toMatchObject({ status: 404, body: { error: 'recording_not_found' } });
    }
    // An import is never a live recording.
    const imported = await recording(owner, { typeSource: 'import', streaming: false });
    expect(await ownerToken(t.url, owner.key, imported)).toMatchObject({ status: 404, body: { error: 'recording_not_found' } });

    const starting = await recording(owner, { streaming: false });
    expect(await ownerToken(t.url, owner.key, starting)).toEqual(
      expect.objectContaining({ status: 425, body: { error: 'recording_not_ready' } }),
    );
    expect(await enableShare(t.url, owner.key, starting)).toMatchObject({ status: 425, body: { error: 'recording_not_ready' } });

    await endRecording(id);
    expect(await ownerToken(t.url, owner.key, id)).toMatchObject({ status: 410, body: { error: 'recording_ended' } });
    expect(await enableShare(t.url, owner.key, id)).toMatchObject({ status: 410, body: { error: 'recording_ended' } });

    // A plan-bound plan without floating subtitles (nor real-time translation).
    const planned = await realKey(t);
    await t.app.deps.plans.setPlan(planned.accountId, { mode: 'unlimited-plan', planName: 'captions' });
    const pid = await recording(planned);
    expect(await ownerToken(t.url, planned.key, pid)).toMatchObject({ status: 403, body: { error: 'plan_feature_not_allowed' } });
    expect(await enableShare(t.url, planned.key, pid)).toMatchObject({ status: 403, body: { error: 'plan_feature_not_allowed' } });
    // With the standard plan (floating subtitles included) the same recording is allowed.
    await t.app.deps.plans.setPlan(planned.accountId, { mode: 'unlimited-plan', planName: 'standard' });
    expect((await ownerToken(t.url, planned.key, pid)).status).toBe(200);
  });

  it('the plan catalogue expresses a plan without floating subtitles: GET /me/plan says so and every subtitle endpoint is 403 plan_feature_not_allowed', async () => {
    const planned = await realKey(t);
    const id = await recording(planned);
    const secret = (await enableShare(t.url, planned.key, id)).body.data.share_secret as string;
    const feature = async (slug: string) =>
      ((await api(t.url, 'GET', '/api/v1/me/plan', { key: planned.key })).body.data.features as { slug: string; included: boolean }[]).find(
        (f) => f.slug === slug,
      )?.included;
    await t.app.deps.plans.setPlan(planned.accountId, { mode: 'unlimited-plan', planName: 'nowindow' });
    expect([await feature('translation'), await feature('floating_subtitles')]).toEqual([true, false]);
    const refusal = { status: 403, body: { error: 'plan_feature_not_allowed' } };
    expect(await ownerToken(t.url, planned.key, id)).toMatchObject(refusal);
    expect(await enableShare(t.url, planned.key, id)).toMatchObject(refusal);
    expect(await exchange(t.url, id, { share_secret: secret })).toMatchObject(refusal);
    // The window without translation, and a catalogue entry written before the feature existed (it follows translation).
    for (const plan of ['windowonly', 'older']) {
      await t.app.deps.plans.setPlan(planned.accountId, { mode: 'unlimited-plan', planName: plan });
      expect(await feature('floating_subtitles')).toBe(true);
      expect((await ownerToken(t.url, planned.key, id)).status).toBe(200);
      const fresh = (await enableShare(t.url, planned.key, id)).body.data.share_secret as string;
      expect((await exchange(t.url, id, { share_secret: fresh })).status).toBe(200);
    }
    await t.app.deps.plans.setPlan(planned.accountId, { mode: 'unlimited-plan', planName: 'captions' });
    expect(await feature('floating_subtitles')).toBe(false);
    expect(await ownerToken(t.url, planned.key, id)).toMatchObject(refusal);
    // Credit mode has no plan features: always allowed.
    await t.app.deps.plans.setPlan(planned.accountId, { mode: 'credit' });
    expect((await ownerToken(t.url, planned.key, id)).status).toBe(200);
  });

  it('the stream refuses: 401 unknown token, 425 before the session streams, 410 after it ended', async () => {
    const id = await recording(owner, { streaming: false });
    expect(await openSubtitles(t.url, id, 'x'.repeat(48))).toMatchObject({ status: 401, body: { error: 'feed_token_invalid' } });
    expect(await openSubtitles(t.url, id, '')).toMatchObject({ status: 401, body: { error: 'feed_token_invalid' } });
    // A token obtained while streaming, then the state of the recording decides.
    const live = await recording();
    const token = (await ownerToken(t.url, owner.key, live)).body.data.token as string;
    await endRecording(live);
    expect(await openSubtitles(t.url, live, token)).toMatchObject({ status: 410, body: { error: 'recording_ended' } });
    // 425: the task is recording but its session stream has not started (the REST endpoints
    // refuse tokens then, so this token is written to the store directly).
    const notStarted = await recording(owner, { streaming: false });
    const direct = 'D'.repeat(48);
    await new SubtitleStore(t.app.deps.database).issueToken(direct, {
      taskId: notStarted,
      kind: 'owner',
      shareId: null,
      expiresAt: new Date(c.now().getTime() + 900_000),
      now: c.now(),
    });
    expect(await openSubtitles(t.url, notStarted, direct)).toMatchObject({ status: 425, body: { error: 'recording_not_ready' } });
  });

  it('feed tokens slide: each use moves the expiry 900 s ahead; unused for 900 s they expire', async () => {
    const id = await recording();
    const token = (await ownerToken(t.url, owner.key, id)).body.data.token as string;
    for (let i = 0; i < 3; i++) {
      c.advance(800_000); // 2400 s in all: long past a fixed 900 s expiry
      const sub = await openSubtitles(t.url, id, token);
      expect(sub.status).toBe(200);
      sub.close();
    }
    c.advance(900_001);
    expect(await openSubtitles(t.url, id, token)).toMatchObject({ status: 401, body: { error: 'feed_token_invalid' } });
  });

  it('share: 48-character secret, 43200 s; the exchange gives a read-only audience token; re-enabling invalidates old links and their tokens', async () => {
    const id = await recording();
    const first = await enableShare(t.url, owner.key, id);
    expect(first.status).toBe(200);
    expect(first.body.data.share_secret).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(first.body.data.expires_in).toBe(43200);
    const ex = await exchange(t.url, id, { share_secret: first.body.data.share_secret });
    expect(ex.status).toBe(200);
    expect(ex.body.data.token).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(ex.body.data.expires_in).toBe(900);
    const audience = await openSubtitles(t.url, id, ex.body.data.token);
    expect((await audience.next((e) => e.event === 'connected')).data.role).toBe('audience');
    audience.close();

    c.advance(60_000);
    const second = await enableShare(t.url, owner.key, id);
    expect(second.body.data.share_secret).not.toBe(first.body.data.share_secret);
    expect(await exchange(t.url, id, { share_secret: first.body.data.share_secret })).toMatchObject({
      status: 403,
      body: { error: 'invalid_share' },
    });
    expect(await openSubtitles(t.url, id, ex.body.data.token)).toMatchObject({ status: 401, body: { error: 'feed_token_invalid' } });
    expect((await exchange(t.url, id, { share_secret: second.body.data.share_secret })).status).toBe(200);
    // The secret works for its own recording only.
    const id2 = await recording();
    expect(await exchange(t.url, id2, { share_secret: second.body.data.share_secret })).toMatchObject({ status: 403 });
    // Valid 43200 s.
    c.advance(43_200_000);
    expect(await exchange(t.url, id, { share_secret: second.body.data.share_secret })).toMatchObject({
      status: 403,
      body: { error: 'invalid_share' },
    });
  });

  it('invalid shares: malformed bodies and secrets are 403 invalid_share; the owner plan and status apply to the exchange', async () => {
    const id = await recording();
    for (const body of [
      {},
      { share_secret: 42 },
      { share_secret: '' },
      { share_secret: 'é'.repeat(48) },
      { share_secret: 'a'.repeat(4000) },
      [],
    ]) {
      expect(await exchange(t.url, id, body)).toMatchObject({ status: 403, body: { error: 'invalid_share' } });
    }
    expect(await exchange(t.url, id, '{"share_secret":')).toMatchObject({ status: 422, body: { error: 'validation_failed' } });
    const secret = (await enableShare(t.url, owner.key, id)).body.data.share_secret as string;
    expect(await exchange(t.url, id.toUpperCase(), { share_secret: secret })).toMatchObject({ status: 200 });
    await endRecording(id);
    expect(await exchange(t.url, id, { share_secret: secret })).toMatchObject({ status: 410, body: { error: 'recording_ended' } });

    const planned = await realKey(t);
    const pid = await recording(planned);
    const psecret = (await enableShare(t.url, planned.key, pid)).body.data.share_secret as string;
    await t.app.deps.plans.setPlan(planned.accountId, { mode: 'unlimited-plan', planName: 'captions' });
    expect(await exchange(t.url, pid, { share_secret: psecret })).toMatchObject({
      status: 403,
      body: { error: 'plan_feature_not_allowed' },
    });
  });

  it('DELETE share: true for the owner (links and audience tokens stop), false for a missing recording or another account', async () => {
    const id = await recording();
    const secret = (await enableShare(t.url, owner.key, id)).body.data.share_secret as string;
    const token = (await exchange(t.url, id, { share_secret: secret })).body.data.token as string;
    const del = (key: string, task: string) => api(t.url, 'DELETE', `/api/v1/auth/tasks/${task}/subtitle-share`, { key });
    expect(await del(other.key, id)).toMatchObject({ status: 200, body: { data: { revoked: false } } });
    expect(await del(owner.key, '5d6f0a8e-1111-4222-8333-944455556666')).toMatchObject({ status: 200, body: { data: { revoked: false } } });
    expect(await del(owner.key, 'nope')).toMatchObject({ status: 200, body: { data: { revoked: false } } });
    // Not revoked by the stranger: still works.
    expect((await exchange(t.url, id, { share_secret: secret })).status).toBe(200);
    expect(await del(owner.key, id)).toMatchObject({ status: 200, body: { data: { revoked: true } } });
    expect(await exchange(t.url, id, { share_secret: secret })).toMatchObject({ status: 403, body: { error: 'invalid_share' } });
    expect(await openSubtitles(t.url, id, token)).toMatchObject({ status: 401, body: { error: 'feed_token_invalid' } });
    expect(await api(t.url, 'DELETE', `/api/v1/auth/tasks/${id}/subtitle-share`, { key: 'svc_x' })).toMatchObject({
      status: 401,
      body: { error: 'auth_invalid_key_format' },
    });
  });

  it('tokens and secrets are stored hashed', async () => {
    const id = await recording();
    const secret = (await enableShare(t.url, owner.key, id)).body.data.share_secret as string;
    const token = (await ownerToken(t.url, owner.key, id)).body.data.token as string;
    const db = t.app.deps.database.db;
    const tokens = await db.selectFrom('subtitle_tokens').selectAll().where('task_id', '=', id).execute();
    const shares = await db.selectFrom('subtitle_shares').selectAll().where('task_id', '=', id).execute();
    const dump = JSON.stringify([tokens, shares]);
    expect(tokens.length).toBe(1);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(secret);
  });

  it('the public exchange answers any origin without credentials (CORS)', async () => {
    const id = await recording();
    const pre = await fetch(`${t.url}/api/v1/public/tasks/${id}/subtitle-feed-token`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://viewer.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const r = await api(t.url, 'POST', `/api/v1/public/tasks/${id}/subtitle-feed-token`, {
      body: { share_secret: 'x'.repeat(48) },
      headers: { origin: 'https://viewer.example' },
    });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });
});
