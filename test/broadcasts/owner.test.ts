/**
 * The host's operations the spec names but does not shape (docs/broadcasts.md): list and
 * read the account's broadcasts, update what may change (never the name; recognition
 * settings only before the first start), revoke (the link stops working at once).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROADCAST_REVOKED_TOPIC } from '../../src/broadcasts/events.js';
import { BroadcastStore } from '../../src/broadcasts/store.js';
import { api, backends, type TestApp } from '../support/app.js';
import { clock, expectError, newBroadcast, realKey, startBroadcastApp, VIEWER_LIMIT, viewer } from './support.js';

describe.each(backends())('broadcast owner operations (%s)', (backend) => {
  const c = clock('2026-05-01T10:00:00.000Z');
  let t: TestApp;
  let key: string;
  let otherKey: string;
  let sameAccountKey: string;
  beforeAll(async () => {
    t = await startBroadcastApp(backend, c);
    const k = await realKey(t);
    key = k.key;
    sameAccountKey = (await realKey(t, { accountId: k.accountId })).key;
    otherKey = (await realKey(t)).key;
  });
  afterAll(() => t?.close());

  const get = (id: string, k = key) => api(t.url, 'GET', `/api/v1/broadcasts/${id}`, { key: k });
  const patch = (id: string, body: unknown, k = key) => api(t.url, 'PATCH', `/api/v1/broadcasts/${id}`, { key: k, body });
  const revoke = (id: string, k = key) => api(t.url, 'POST', `/api/v1/broadcasts/${id}/revoke`, { key: k });
  const setStatus = (id: string, status: string) =>
    t.app.deps.database.db.updateTable('broadcasts').set({ status }).where('id', '=', id).execute();

  it('documents every host and viewer operation in the OpenAPI document', async () => {
    const doc = (await api(t.url, 'GET', '/api/v1/openapi.json')).body;
    const paths = doc.paths as Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { schema: { properties: object } }> } }>
    >;
    expect(Object.keys(paths['/api/v1/broadcasts']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/api/v1/broadcasts/{id}']!).sort()).toEqual(['get', 'patch']);
    expect(Object.keys(paths['/api/v1/broadcasts/{id}/revoke']!)).toEqual(['post']);
    expect(Object.keys(paths['/api/v1/viewer/broadcasts/{token}']!)).toEqual(['get']);
    expect(Object.keys(paths['/api/v1/viewer/broadcasts/{token}/verify']!)).toEqual(['post']);
    const create = paths['/api/v1/broadcasts']!.post!.requestBody!.content['application/json']!.schema.properties;
    expect(Object.keys(create)).toEqual(
      expect.arrayContaining(['transcription_languages', 'pass_code', 'max_viewers', 'tts_config', 'name']),
    );
    const update = paths['/api/v1/broadcasts/{id}']!.patch!.requestBody!.content['application/json']!.schema.properties;
    expect(Object.keys(update)).not.toContain('name');
  });

  it('lists the account broadcasts newest first, paged, filtered by status; every key of the account sees them', async () => {
    const k = await realKey(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      c.advance(1000);
      ids.push((await newBroadcast(t, k.key, { name: `b${i}` })).id);
    }
    const page1 = await api(t.url, 'GET', '/api/v1/broadcasts?per_page=2', { key: k.key });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((b: { id: string }) => b.id)).toEqual([ids[4], ids[3]]);
    expect(page1.body.meta).toEqual({ current_page: 1, last_page: 3, per_page: 2, total: 5 });
    const page3 = await api(t.url, 'GET', '/api/v1/broadcasts?per_page=2&page=3', { key: k.key });
    expect(page3.body.data.map((b: { id: string }) => b.id)).toEqual([ids[0]]);
    await revoke(ids[1]!, k.key);
    const revoked = await api(t.url, 'GET', '/api/v1/broadcasts?status=revoked', { key: k.key });
    expect(revoked.body.data.map((b: { id: string }) => b.id)).toEqual([ids[1]]);
    const other = await api(t.url, 'GET', '/api/v1/broadcasts', { key: otherKey });
    expect(other.body.data.map((b: { id: string }) => b.id)).not.toContain(ids[0]);
    const sibling = await realKey(t, { accountId: k.accountId });
    expect((await api(t.url, 'GET', '/api/v1/broadcasts', { key: sibling.key })).body.meta.total).toBe(5);
  });

  it('422 validation_failed for a bad status, page or per_page', async () => {
    expectError(await api(t.url, 'GET', '/api/v1/broadcasts?status=live', { key }), 422, 'validation_failed', 'status');
    expectError(await api(t.url, 'GET', '/api/v1/broadcasts?page=0', { key }), 422, 'validation_failed', 'page');
    expectError(await api(t.url, 'GET', '/api/v1/broadcasts?per_page=101', { key }), 422, 'validation_failed', 'per_page');
    expectError(await api(t.url, 'GET', '/api/v1/broadcasts?per_page=abc', { key }), 422, 'validation_failed', 'per_page');
  });

  it("404 broadcast_not_found for another account's, unknown or malformed ids; 401 without a key", async () => {
    const b = await newBroadcast(t, key);
    expect((await get(b.id, sameAccountKey)).status).toBe(200);
    for (const op of [() => get(b.id, otherKey), () => patch(b.id, { max_viewers: 2 }, otherKey), () => revoke(b.id, otherKey)]) {
      expectError(await op(), 404, 'broadcast_not_found');
    }
    expectError(await get('00000000-0000-4000-8000-000000000000'), 404, 'broadcast_not_found');
    expectError(await get('..%2F..%2Fetc'), 404, 'broadcast_not_found');
    expectError(await api(t.url, 'GET', `/api/v1/broadcasts/${b.id}`), 401, 'auth_missing_api_key');
    expect((await get(b.id)).body.data.max_viewers).toBe(VIEWER_LIMIT);
  });

  it('updates access, max_viewers, TTS, summary and callback_url; the name never (422)', async () => {
    const b = await newBroadcast(t, key, { name: 'Town hall', translation_languages: ['es'] });
    c.advance(5000);
    const r = await patch(b.id, {
      max_viewers: 7,
      tts_config: { es: { voice: 'espeak-es-female-2', speaking_rate: 1.5 } },
      summary_template: 'action-items',
      summary_language: 'es',
      callback_url: 'https://hooks.example.org/b?sig=1',
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      name: 'Town hall',
      max_viewers: 7,
      tts_config: { es: { voice: 'espeak-es-female-2', speaking_rate: 1.5 } },
      summary_template: 'action-items',
      summary_language: 'es',
      callback_url: 'https://hooks.example.org/b',
      updated_at: c.now().toISOString(),
    });
    const cleared = await patch(b.id, { callback_url: null, summary_template: null, tts_config: null });
    expect(cleared.body.data).toMatchObject({ callback_url: null, summary_template: null, tts_config: {} });
    expectError(await patch(b.id, { name: 'Other' }), 422, 'validation_failed', 'name');
    expectError(await patch(b.id, { max_viewers: VIEWER_LIMIT + 1 }), 422, 'validation_failed', 'max_viewers');
    expectError(await patch(b.id, { colour: 'red' }), 422, 'validation_failed', 'colour');
    expectError(await patch(b.id, 'x'), 422, 'validation_failed', 'body');
    expect((await get(b.id)).body.data.name).toBe('Town hall');
  });

  it('changes languages and speaker diarization only while pending (409 broadcast_not_editable after); the summary language follows unless chosen', async () => {
    const b = await newBroadcast(t, key, { transcription_languages: ['en'], translation_languages: ['es', 'fr'], tts_config: { fr: {} } });
    const r = await patch(b.id, { transcription_languages: ['de'], translation_languages: ['es'] });
    expect(r.body.data).toMatchObject({
      transcription_languages: ['de'],
      summary_language: 'de',
      translation_languages: ['es'],
      tts_config: {},
    });
    expectError(
      await patch(b.id, { transcription_languages: ['de', 'en'], speaker_diarization: true }),
      422,
      'validation_failed',
      'speaker_diarization',
    );
    expect((await patch(b.id, { speaker_diarization: true })).body.data.speaker_diarization).toBe(true);
    await setStatus(b.id, 'active');
    for (const field of ['transcription_languages', 'translation_languages', 'speaker_diarization']) {
      const value = field === 'speaker_diarization' ? false : ['en'];
      const refused = await patch(b.id, { [field]: value });
      expectError(refused, 409, 'broadcast_not_editable');
      expect(refused.body.data.details.field).toBe(field);
    }
    expect((await patch(b.id, { max_viewers: 3 })).body.data.max_viewers).toBe(3);
    await setStatus(b.id, 'ended');
    expectError(await patch(b.id, { max_viewers: 4 }), 409, 'broadcast_not_editable');
  });

  it('switches access: to password needs a pass code; a new pass code or access type makes older viewer tokens stale', async () => {
    const b = await newBroadcast(t, key);
    expectError(await patch(b.id, { access_type: 'password' }), 422, 'validation_failed', 'pass_code');
    expectError(await patch(b.id, { pass_code: 'abcd' }), 422, 'validation_failed', 'pass_code');
    expect((await patch(b.id, { access_type: 'password', pass_code: 'first1' })).body.data.requires_password).toBe(true);
    const v1 = await viewer(t, 'POST', `/api/v1/viewer/broadcasts/${b.token}/verify`, { body: { password: 'first1' } });
    expect(v1.status).toBe(200);
    const version = async () =>
      Number(
        (await t.app.deps.database.db.selectFrom('broadcasts').select('access_version').where('id', '=', b.id).executeTakeFirstOrThrow())
          .access_version,
      );
    const before = await version();
    await patch(b.id, { max_viewers: 9 });
    expect(await version()).toBe(before);
    await patch(b.id, { pass_code: 'second2' });
    expect(await version()).toBe(before + 1);
    expectError(
      await viewer(t, 'POST', `/api/v1/viewer/broadcasts/${b.token}/verify`, { body: { password: 'first1' } }),
      401,
      'broadcast_password_incorrect',
    );
    expect((await viewer(t, 'POST', `/api/v1/viewer/broadcasts/${b.token}/verify`, { body: { password: 'second2' } })).status).toBe(200);
    const pub = await patch(b.id, { access_type: 'public' });
    expect(pub.body.data.requires_password).toBe(false);
    expect(await version()).toBe(before + 2);
    const open = await viewer(t, 'POST', `/api/v1/viewer/broadcasts/${b.token}/verify`, { body: { password: 'second2' } });
    expect(open.body.data.viewer_access_token).toBeNull();
  });

  it('revokes: the link answers 401 broadcast_token_revoked at once, viewer tokens are deleted, the token is free again; revoking again changes nothing', async () => {
    const announced: unknown[] = [];
    const off = await t.app.deps.bus.subscribe(BROADCAST_REVOKED_TOPIC, (m) => announced.push(m));
    const b = await newBroadcast(t, key, { access_type: 'password', pass_code: 'secret' });
    expect((await viewer(t, 'POST', `/api/v1/viewer/broadcasts/${b.token}/verify`, { body: { password: 'secret' } })).status).toBe(200);
    c.advance(1000);
    const r = await revoke(b.id);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: b.id, status: 'revoked', revoked_at: c.now().toISOString(), is_live: false });
    expectError(await viewer(t, 'GET', `/api/v1/viewer/broadcasts/${b.token}`), 401, 'broadcast_token_revoked');
    expectError(
      await viewer(t, 'POST', `/api/v1/viewer/broadcasts/${b.token}/verify`, { body: { password: 'secret' } }),
      401,
      'broadcast_token_revoked',
    );
    const tokens = await t.app.deps.database.db
      .selectFrom('broadcast_viewer_tokens')
      .select('token_hash')
      .where('broadcast_id', '=', b.id)
      .execute();
    expect(tokens).toEqual([]);
    const again = await revoke(b.id);
    expect(again.body.data.revoked_at).toBe(r.body.data.revoked_at);
    expectError(await patch(b.id, { max_viewers: 2 }), 409, 'broadcast_not_editable');
    await new Promise((res) => setTimeout(res, 50));
    expect(announced).toEqual([{ broadcast_id: b.id, token: b.token }]);
    off();
    // The released token can be claimed by a new broadcast; the viewer link then names the new one.
    const claim = await t.app.deps.database.db
      .selectFrom('broadcasts')
      .select('token_claim')
      .where('id', '=', b.id)
      .executeTakeFirstOrThrow();
    expect(claim.token_claim).toBeNull();
    const store = new BroadcastStore(t.app.deps.database);
    const settings = { ...(await store.get(b.id))!, accessType: 'public' as const };
    const fresh = { accountId: settings.accountId, keyId: settings.keyId, token: b.token, settings, passCodeHash: null, now: c.now() };
    expect(await store.insert({ ...fresh, id: randomUUID() })).toBe(true);
    const second = await viewer(t, 'GET', `/api/v1/viewer/broadcasts/${b.token}`);
    expect(second.status).toBe(200);
    expect(second.body.data.id).not.toBe(b.id);
    // While that one is usable, nobody else gets the token.
    expect(await store.insert({ ...fresh, id: randomUUID() })).toBe(false);
  });
});
