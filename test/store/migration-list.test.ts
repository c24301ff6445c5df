/**
 * The migrations live with their features now (src/<feature>/migrations/) and src/schema.ts
 * lists them; existing databases record these ids in parley_migrations, so the ids and the
 * order they apply in must stay exactly the history they were.
 */
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/schema.js';

const HISTORY = [
  '0001_accounts_keys',
  '0002_billing',
  '0003_tickets',
  '0050_jobs',
  '0051_job_fairness',
  '0052_job_enqueue_order',
  '0100_tasks',
  '0110_task_list_versions',
  '0120_sentence_ids_from_one',
  '0121_transcript_kept_speakers',
  '0130_task_search',
  '0200_webhooks',
  '0300_imports',
  '0400_subtitles',
  '0500_broadcasts',
  '0501_broadcast_hosts',
  '0502_broadcast_live_since',
  '0503_broadcast_recordings',
  '0504_broadcast_host_lease',
  '0510_broadcast_caption_sinks',
  '0511_broadcast_tts_languages',
  '0520_broadcast_catch_ups',
  '0600_live_recordings',
  '0700_auth_epoch',
  '0701_billing_epoch',
  '0702_billing_epoch_postgres',
  '0703_auth_notices_postgres',
  '0704_billing_notices_postgres',
  '0800_sentence_revisions',
];

describe('the migration list', () => {
  it('holds every migration ever shipped, once, applied in id order', () => {
    const ids = MIGRATIONS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(HISTORY);
  });
});
