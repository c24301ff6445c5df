/**
 * TTS voice endpoints over real HTTP with real eSpeak NG voices: the voice list, the MP3
 * sample (synthesized once, then served from the blob store), every error the spec lists for
 * them (400 validation_failed on voices, 404, 500, 429 with Retry-After), and an api-only
 * process serving both with the engines its role loads.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process.js';
import { EspeakSynthesizer } from '../../src/engines/builtin/espeak.js';
import { createEngines } from '../../src/engines/index.js';
import { EngineRegistry } from '../../src/engines/registry.js';
import { createLogger } from '../../src/platform/logging.js';
import { sampleBlobKey } from '../../src/tts/service.js';
import { realKey } from '../billing/support.js';
import { ttsEngines } from '../broadcasts/support.js';
import { api, startTestApp, type TestApp, testConfig } from '../support/app.js';

/** GET returning the raw bytes (samples are binary). */
async function getBytes(t: TestApp, path: string, key: string) {
  const res = await fetch(t.url + path, { headers: { 'x-api-key': key } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** An MP3 starts with an ID3 tag or an MPEG audio frame sync (11 set bits). */
function looksLikeMp3(b: Buffer): boolean {
  if (b.length < 4) return false;
  if (b.subarray(0, 3).toString('latin1') === 'ID3') return true;
  return b[0] === 0xff && (b[1]! & 0xe0) === 0xe0;
}

describe('TTS voices and samples (eSpeak NG)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ engines: await ttsEngines() });
    key = (await realKey(t)).key;
  });
  afterAll(async () => t?.close());

  it('lists voices for en with every field and a sample_url that serves the sample', async () => {
    const r = await api(t.url, 'GET', '/api/v1/tts/voices?language=en', { key });
    expect(r.status).toBe(200);
    expect(r.body.data.language).toBe('en');
    const voices = r.body.data.voices as Array<Record<string, unknown>>;
    expect(voices.length).toBeGreaterThanOrEqual(2);
    for (const v of voices) {
      expect(Object.keys(v).sort()).toEqual(['display_name', 'gender', 'is_default', 'sample_url', 'voice_name']);
      expect(['Female', 'Male']).toContain(v.gender);
      expect(v.sample_url).toBe(`/api/v1/tts/voices/${encodeURIComponent(v.voice_name as string)}/sample`);
    }
    expect(voices.filter((v) => v.is_default)).toHaveLength(1);
    expect(new Set(voices.map((v) => v.gender))).toEqual(new Set(['Female', 'Male']));
  });

  it('normalizes the language tag (de-de -> de-DE) and answers German voices', async () => {
    const r = await api(t.url, 'GET', '/api/v1/tts/voices?language=de-de', { key });
    expect(r.status).toBe(200);
    expect(r.body.data.language).toBe('de-DE');
    expect(r.body.data.voices.map((v: { voice_name: string }) => v.voice_name)).toContain('espeak-de-female-1');
  });

  it('gives an empty voices array for an unsupported locale', async () => {
    const r = await api(t.url, 'GET', '/api/v1/tts/voices?language=xh-ZA', { key });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ language: 'xh-ZA', voices: [] });
  });

  it('answers 400 validation_failed without language, with an empty or malformed one', async () => {
    for (const q of ['', '?language=', '?language=../../etc', `?language=${'a'.repeat(300)}`, '?language=en&language=fr']) {
      const r = await api(t.url, 'GET', `/api/v1/tts/voices${q}`, { key });
      expect(r.status, q).toBe(400);
      expect(r.body.data.error_code, q).toBe('validation_failed');
      expect(r.body.data.details.field, q).toBe('language');
    }
  });

  it('requires an API key on both endpoints', async () => {
    expect((await api(t.url, 'GET', '/api/v1/tts/voices?language=en')).status).toBe(401);
    expect((await api(t.url, 'GET', '/api/v1/tts/voices/espeak-en-US-male-1/sample')).status).toBe(401);
  });

  it('serves an MP3 sample with the spec headers, synthesized once and then read from the blob store', async () => {
    const name = 'espeak-en-US-male-1';
    const blobKey = sampleBlobKey('builtin/espeak', name);
    expect(await t.app.deps.blobs.stat(blobKey)).toBeNull();

    const first = await getBytes(t, `/api/v1/tts/voices/${name}/sample`, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('audio/mpeg');
    expect(first.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(Number(first.headers.get('content-length'))).toBe(first.bytes.length);
    expect(first.bytes.length).toBeGreaterThan(2000);
    expect(looksLikeMp3(first.bytes)).toBe(true);

    const stored = await t.app.deps.blobs.stat(blobKey);
    expect(stored?.size).toBe(first.bytes.length);
    // Overwrite the cached blob: the second answer must be the stored bytes, not a new synthesis.
    const marker = Buffer.concat([first.bytes, Buffer.from('cached')]);
    await t.app.deps.blobs.put(blobKey, marker);
    const second = await getBytes(t, `/api/v1/tts/voices/${name}/sample`, key);
    expect(second.status).toBe(200);
    expect(second.bytes.equals(marker)).toBe(true);
  });

  it('concurrent first requests for a voice all get the same MP3, stored as one blob', async () => {
    const name = 'espeak-it-male-2';
    const answers = await Promise.all(Array.from({ length: 5 }, () => getBytes(t, `/api/v1/tts/voices/${name}/sample`, key)));
    for (const a of answers) expect(a.status).toBe(200);
    for (const a of answers) expect(a.bytes.equals(answers[0]!.bytes)).toBe(true);
    expect((await t.app.deps.blobs.stat(sampleBlobKey('builtin/espeak', name)))?.size).toBe(answers[0]!.bytes.length);
  });

  it('is not charged: credit and usage are unchanged by samples', async () => {
    const k = await realKey(t);
    const before = await api(t.url, 'GET', '/api/v1/me/usage', { key: k.key });
    const r = await getBytes(t, '/api/v1/tts/voices/espeak-fr-female-1/sample', k.key);
    expect(r.status).toBe(200);
    expect(looksLikeMp3(r.bytes)).toBe(true);
    const after = await api(t.url, 'GET', '/api/v1/me/usage', { key: k.key });
    expect(after.body).toEqual(before.body);
  });

  it('answers 404 tts_voice_not_found for unknown, long and path-like voice names', async () => {
    for (const name of [
      'espeak-en-US-robot',
      encodeURIComponent('../../etc/passwd'),
      'x'.repeat(90),
      'y'.repeat(300),
      encodeURIComponent('é🙂'.repeat(40)),
    ]) {
      const r = await api(t.url, 'GET', `/api/v1/tts/voices/${name}/sample`, { key });
      expect(r.status, name).toBe(404);
      expect(r.body.data.error_code, name).toBe('tts_voice_not_found');
    }
  });

  it('answers 429 too_many_requests with Retry-After after 30 samples a minute per account, for every key of it', async () => {
    const a = await realKey(t);
    const sameAccount = await realKey(t, { accountId: a.accountId });
    const other = await realKey(t);
    const path = '/api/v1/tts/voices/espeak-en-US-female-1/sample';
    for (let i = 0; i < 30; i++) {
      const r = await getBytes(t, path, i % 2 ? a.key : sameAccount.key);
      expect(r.status, `request ${i + 1}`).toBe(200);
    }
    const over = await api(t.url, 'GET', path, { key: sameAccount.key });
    expect(over.status).toBe(429);
    expect(over.body.data.error_code).toBe('too_many_requests');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another account is not affected.
    expect((await getBytes(t, path, other.key)).status).toBe(200);
  });

  it('documents both endpoints in the OpenAPI document', async () => {
    const r = await api(t.url, 'GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/api/v1/tts/voices', '/api/v1/tts/voices/{voiceName}/sample']));
  });
});

describe('TTS sample generation failure', () => {
  let t: TestApp;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    // The real eSpeak NG engine with an MP3 encoder binary that always fails.
    dir = mkdtempSync(join(tmpdir(), 'parley-tts-broken-'));
    const broken = join(dir, 'ffmpeg');
    writeFileSync(broken, '#!/bin/sh\necho "encoder broken" >&2\nexit 1\n');
    chmodSync(broken, 0o755);
    const engine = new EspeakSynthesizer(broken, [['en-US', 'en-us', 'English (US)']]);
    t = await startTestApp({ engines: EngineRegistry.fromEngines([engine]) });
    key = (await realKey(t)).key;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 500 tts_sample_generation_failed and caches nothing; voices are still listed', async () => {
    const name = 'espeak-en-US-female-1';
    const r = await api(t.url, 'GET', `/api/v1/tts/voices/${name}/sample`, { key });
    expect(r.status).toBe(500);
    expect(r.body.data.error_code).toBe('tts_sample_generation_failed');
    expect(await t.app.deps.blobs.stat(sampleBlobKey('builtin/espeak', name))).toBeNull();
    const v = await api(t.url, 'GET', '/api/v1/tts/voices?language=en-US', { key });
    expect(v.body.data.voices.length).toBeGreaterThan(0);
  });
});

describe('TTS endpoints on an api-only process', () => {
  it('serves voices and samples with the engines the api role loads', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-tts-api-'));
    const env = { PARLEY_ROLES: 'api' };
    const config = testConfig(dataDir, 'sqlite', env);
    const engines = await createEngines(config, createLogger('silent'));
    const bus = new InProcessBus();
    const t = await startTestApp({ env, engines, bus, reuse: { dataDir } });
    try {
      const { key } = await realKey(t);
      const v = await api(t.url, 'GET', '/api/v1/tts/voices?language=es', { key });
      expect(v.status).toBe(200);
      expect(v.body.data.voices.length).toBeGreaterThan(0);
      const s = await getBytes(t, v.body.data.voices[0].sample_url, key);
      expect(s.status).toBe(200);
      expect(s.headers.get('content-type')).toBe('audio/mpeg');
      expect(looksLikeMp3(s.bytes)).toBe(true);
    } finally {
      await t.close();
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
