/**
 * Error messages a newcomer can act on: each names what to send instead. Provoked through
 * real HTTP and WebSocket clients against the real app.
 */
import { connect as netConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../../src/keys/service.js';
import { upload } from '../imports/support.js';
import { connect } from '../realtime/support.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';

describe('errors a newcomer understands', () => {
  let t: TestApp;
  let key: CreatedKey;
  beforeAll(async () => {
    t = await startTestApp();
    key = await t.app.deps.keys.createKey({ name: 'newcomer' });
    await t.app.deps.billing.grantCredit({ accountId: key.account_id, points: 100, pool: 'account' });
  }, 60_000);
  afterAll(() => t?.close());

  it('a WebSocket without a ticket.<TICKET> subprotocol is told how to pass the ticket', async () => {
    for (const protocols of [[], ['Bearer-abc']]) {
      const cl = await connect(t, protocols);
      const msg = await cl.next();
      expect(msg).toMatchObject({ type: 'error', data: { error_code: 'ticket_invalid', details: { reason: 'no_ticket_subprotocol' } } });
      expect(msg.data.message).toContain('POST /api/v1/auth/ticket');
      expect(msg.data.message).toContain('ticket.<TICKET>');
    }
  });

  it('headers over the limit are 431 in the standard error shape', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = netConnect(Number(new URL(t.url).port), '127.0.0.1');
      let got = '';
      socket.on('data', (d) => {
        got += d.toString();
      });
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
      socket.write(`GET /api/v1/version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
    });
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(body.data).toMatchObject({ error_code: 'request_headers_too_large', severity: 'error' });
    expect(body.data.message).toMatch(/headers are too large/);
  });

  it('a JSON endpoint sent another content type answers 415 naming application/json', async () => {
    const res = await api(t.url, 'PUT', '/api/v1/tasks/batch/pin', {
      key: key.api_key,
      body: '<pin/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(res.status).toBe(415);
    expect(res.body.data).toMatchObject({
      error_code: 'unsupported_media_type',
      details: { expected: 'application/json', received: 'application/xml' },
    });
    expect(res.body.data.message).toContain('Content-Type: application/json');
  });

  it.skipIf(!haveSharedAudio())('an unknown summary_template lists the valid slugs', async () => {
    const res = await upload(t.url, key.api_key, { file: { path: convert(JFK, 'wav') }, fields: { summary_template: 'no-such-template' } });
    expect(res.status).toBe(422);
    expect(res.body.data.details.field).toBe('summary_template');
    const slugs = (await api(t.url, 'GET', '/api/v1/summary-templates?category=all', { key: key.api_key })).body.data.map(
      (x: { slug: string }) => x.slug,
    );
    expect(slugs.length).toBeGreaterThan(0);
    expect(res.body.data.details.valid_values).toEqual(slugs);
    for (const slug of slugs) expect(res.body.data.message).toContain(slug);
  });

  it('the import form reports a wrong file before any other field', async () => {
    const res = await upload(t.url, key.api_key, {
      file: { bytes: Buffer.from('this is a text file, not audio'), name: 'notes.mp3' },
      fields: { recognition_mode: 'multi_channel', transcription_languages: 'not json' },
    });
    expect(res.status).toBe(415);
    expect(res.body.data.error_code).toBe('import_invalid_format');
    expect(res.body.data.message).toMatch(/mp3, wav or m4a/);
  });

  it('GET /api/v1/tasks/{taskId} answers one task with its fields; unknown ids are 404', async () => {
    const task = await t.app.deps.tasks.store.createTask({
      accountId: key.account_id,
      keyId: key.key_id,
      title: 'Standup',
      type: 'transcribe',
      typeSource: 'realtime',
      recognitionMode: 'single',
      transcriptionLanguages: ['en-US'],
      translationLanguages: ['es'],
      processingStatus: 'processing',
    });
    const res = await api(t.url, 'GET', `/api/v1/tasks/${task.taskId}`, { key: key.api_key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      task_id: task.taskId,
      title: 'Standup',
      processing_status: 'processing',
      recognition_mode: 'single',
      has_audio: false,
      transcription_languages: ['en-US'],
      translation_languages: ['es'],
    });
    const missing = await api(t.url, 'GET', '/api/v1/tasks/00000000-0000-4000-8000-000000000000', { key: key.api_key });
    expect(missing.status).toBe(404);
    expect(missing.body.data.error_code).toBe('recording_not_found');
    const other = await t.app.deps.keys.createKey({ name: 'other' });
    expect((await api(t.url, 'GET', `/api/v1/tasks/${task.taskId}`, { key: other.api_key })).status).toBe(404);
  });
});
