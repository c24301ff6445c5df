/**
 * The whole database, assembled above the store: every feature's tables (added to the store's
 * `Schema` interface) and every feature's migrations, one line each. A feature owns its tables
 * (`src/<feature>/tables.ts`) and its migrations (`src/<feature>/migrations/`); a new one adds
 * its lines here. Migration ids and their order are the history of existing databases: they
 * never change (ranges in ARCHITECTURE.md, "Storage").
 */

import { billingMigration } from './billing/migrations/0002_billing.js';
import { billingEpochMigration } from './billing/migrations/0701_billing_epoch.js';
import { billingEpochPostgresMigration } from './billing/migrations/0702_billing_epoch_postgres.js';
import { billingNoticesPostgresMigration } from './billing/migrations/0704_billing_notices_postgres.js';
import type { BillingTables } from './billing/tables.js';
import { broadcastsMigration } from './broadcasts/migrations/0500_broadcasts.js';
import { broadcastHostsMigration } from './broadcasts/migrations/0501_broadcast_hosts.js';
import { broadcastLiveSinceMigration } from './broadcasts/migrations/0502_broadcast_live_since.js';
import { broadcastRecordingsMigration } from './broadcasts/migrations/0503_broadcast_recordings.js';
import { broadcastHostLeaseMigration } from './broadcasts/migrations/0504_broadcast_host_lease.js';
import { broadcastCaptionSinksMigration } from './broadcasts/migrations/0510_broadcast_caption_sinks.js';
import { broadcastTtsLanguagesMigration } from './broadcasts/migrations/0511_broadcast_tts_languages.js';
import { broadcastCatchUpsMigration } from './broadcasts/migrations/0520_broadcast_catch_ups.js';
import type { BroadcastTables } from './broadcasts/tables.js';
import { sentenceRevisionsMigration } from './corrections/migrations/0800_sentence_revisions.js';
import type { CorrectionTables } from './corrections/tables.js';
import { importsMigration } from './imports/migrations/0300_imports.js';
import type { ImportTables } from './imports/tables.js';
import { jobsMigration } from './jobs/migrations/0050_jobs.js';
import { jobFairnessMigration } from './jobs/migrations/0051_job_fairness.js';
import { jobEnqueueOrderMigration } from './jobs/migrations/0052_job_enqueue_order.js';
import type { JobTables } from './jobs/tables.js';
import { accountsKeysMigration } from './keys/migrations/0001_accounts_keys.js';
import { authEpochMigration } from './keys/migrations/0700_auth_epoch.js';
import { authNoticesPostgresMigration } from './keys/migrations/0703_auth_notices_postgres.js';
import type { KeyTables } from './keys/tables.js';
import type { PlanTables } from './plans/tables.js';
import { liveRecordingsMigration } from './realtime/live/migrations/0600_live_recordings.js';
import type { LiveRecordingTables } from './realtime/live/tables.js';
import { taskSearchMigration } from './search/migrations/0130_task_search.js';
import type { SearchTables } from './search/tables.js';
import type { Database } from './store/database.js';
import { migrate as applyMigrations } from './store/migrate.js';
import type { Migration } from './store/migration.js';
import { subtitlesMigration } from './subtitles/migrations/0400_subtitles.js';
import type { SubtitleTables } from './subtitles/tables.js';
import { tasksMigration } from './tasks/migrations/0100_tasks.js';
import { taskListVersionsMigration } from './tasks/migrations/0110_task_list_versions.js';
import { sentenceIdsFromOneMigration } from './tasks/migrations/0120_sentence_ids_from_one.js';
import { transcriptKeptSpeakersMigration } from './tasks/migrations/0121_transcript_kept_speakers.js';
import type { TaskTables } from './tasks/tables.js';
import { ticketsMigration } from './tickets/migrations/0003_tickets.js';
import type { TicketTables } from './tickets/tables.js';
import { webhooksMigration } from './webhooks/migrations/0200_webhooks.js';
import type { WebhookTables } from './webhooks/tables.js';

declare module './store/schema.js' {
  interface Schema
    extends KeyTables,
      JobTables,
      TaskTables,
      BillingTables,
      PlanTables,
      TicketTables,
      WebhookTables,
      ImportTables,
      SubtitleTables,
      BroadcastTables,
      LiveRecordingTables,
      SearchTables,
      CorrectionTables {}
}

/** Every migration (ids are unique; `migrate` applies them in id order). */
export const MIGRATIONS: Migration[] = [
  accountsKeysMigration,
  jobsMigration,
  jobFairnessMigration,
  jobEnqueueOrderMigration,
  tasksMigration,
  taskListVersionsMigration,
  sentenceIdsFromOneMigration,
  transcriptKeptSpeakersMigration,
  taskSearchMigration,
  billingMigration,
  ticketsMigration,
  webhooksMigration,
  importsMigration,
  subtitlesMigration,
  broadcastsMigration,
  broadcastHostsMigration,
  broadcastLiveSinceMigration,
  broadcastRecordingsMigration,
  broadcastHostLeaseMigration,
  broadcastCaptionSinksMigration,
  broadcastTtsLanguagesMigration,
  broadcastCatchUpsMigration,
  liveRecordingsMigration,
  authEpochMigration,
  billingEpochMigration,
  billingEpochPostgresMigration,
  authNoticesPostgresMigration,
  billingNoticesPostgresMigration,
  sentenceRevisionsMigration,
];

/** Brings a database up to date: every migration not yet applied, in id order. */
export function migrate(database: Database, migrations: Migration[] = MIGRATIONS): Promise<string[]> {
  return applyMigrations(database, migrations);
}
