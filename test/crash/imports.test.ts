/**
 * kill -9 of the server at each stage of an import (converted, transcribed, translated,
 * summarized, charged, and while each of its two webhooks is being sent), then a restart on
 * the same data: the import completes exactly once, its charge is taken once, the summary once,
 * each webhook reaches the receiver (a repeat after a kill between the POST and its record
 * carries the same delivery_id, so a receiver deduplicates it), and no temporary file is left.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from '../imports/support.js';
import { api, backends } from '../support/app.js';
import { convert, haveSharedAudio, JFK } from '../support/audio.js';
import { until } from '../support/until.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { crashSite, killAt, startKey, usage } from './support.js';

const mp3 = haveSharedAudio() ? convert(JFK, 'mp3') : null;
const POINTS = [
  'import.converted',
  'import.transcribed',
  'import.translated',
  'import.summarized',
  'import.charged',
  'webhook.sending.recording.completed',
  'webhook.sent.import.completed',
];

describe.skipIf(!mp3).each(backends())('imports killed with SIGKILL at each stage (%s)', (backend) => {
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(() => rx?.close());

  it.each(POINTS)(
    'killed at %s: completes once, charged once, every webhook delivered',
    async (point) => {
      const site = await crashSite(backend);
      try {
        const first = await site.start(point);
        const key = await startKey(first);
        const res = await upload(site.base, key, {
          file: { path: mp3! },
          fields: { callback_url: `${rx.url}?${point}`, translation_languages: '["es"]', summary_template: 'general-summary' },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        const id = res.body.data.import_id as string;
        await killAt(first, point);

        await site.start();
        const get = async () => (await api(site.base, 'GET', `/api/v1/imports/${id}`, { key })).body.data;
        await until(async () => ['completed', 'failed'].includes((await get()).status), 120_000, 'the import to end');
        const end = await get();
        expect(end.status, JSON.stringify(end)).toBe('completed');
        const mine = () => rx.received.filter((r) => r.json?.data?.task_id === end.task_id);
        await until(() => mine().some((r) => r.json.event === 'import.completed'), 30_000, 'import.completed');
        await new Promise((r) => setTimeout(r, 1500)); // a duplicate would arrive by now
        // Each notification once per delivery_id (a repeat of a delivery keeps its id).
        const byEvent = (e: string) =>
          new Set(
            mine()
              .filter((r) => r.json.event === e)
              .map((r) => r.json.delivery_id),
          );
        expect(byEvent('recording.completed').size).toBe(1);
        expect(byEvent('import.completed').size).toBe(1);
        expect(mine().map((r) => r.json.event)).not.toContain('import.failed');
        const rows = (await usage(site.base, key)).filter((u) => u.task_id === end.task_id && !u.refunded);
        expect(rows.filter((u) => u.type === 'import')).toHaveLength(1);
        // An import's summary is part of its price (no row of its own); none may appear twice either.
        expect(rows.filter((u) => u.type === 'summary').length).toBeLessThanOrEqual(1);
        const tmp = join(site.dataDir, 'tmp', 'imports');
        expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
      } finally {
        await site.close();
      }
    },
    300_000,
  );
});
