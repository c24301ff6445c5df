/**
 * When the key store cannot be read, authentication answers the spec's auth_service_error
 * (500, fatal, context authentication) rather than a generic internal error.
 */
import { describe, expect, it } from 'vitest';
import { api, backends, startTestApp } from '../support/app.js';

describe.each(backends())('authentication service unavailable (%s)', (backend) => {
  it('a database failure during key lookup is auth_service_error', async () => {
    const t = await startTestApp({ backend });
    try {
      const k = await t.app.deps.keys.createKey({});
      expect((await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key })).status).toBe(200);
      // The database gone; on PostgreSQL the change feed's connection with it (its heartbeat
      // would find that out within seconds), so the key cached by the request above is read again.
      await t.app.deps.database.close();
      await t.app.deps.changes?.close();
      const r = await api(t.url, 'GET', '/api/v1/me/key', { key: k.api_key });
      expect(r.status).toBe(500);
      expect(r.body.data).toMatchObject({ error_code: 'auth_service_error', severity: 'fatal', context: 'authentication' });
      // A key that fails the format check never reaches the store: still the format error.
      expect((await api(t.url, 'GET', '/api/v1/me/key', { key: 'svc_x' })).body.data.error_code).toBe('auth_invalid_key_format');
    } finally {
      // The database is already closed; the rest of the app still shuts down.
      await t.close().catch(() => t.app.http.close());
    }
  });
});
