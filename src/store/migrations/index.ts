/** All migrations, one import line each (ids must be unique; order is by id). */
import type { Migration } from '../migrate.js';
import { accountsKeysMigration } from './0001_accounts_keys.js';
import { billingMigration } from './0002_billing.js';
import { ticketsMigration } from './0003_tickets.js';
import { jobsMigration } from './0050_jobs.js';
import { jobFairnessMigration } from './0051_job_fairness.js';
import { tasksMigration } from './0100_tasks.js';
import { taskListVersionsMigration } from './0110_task_list_versions.js';
import { sentenceIdsFromOneMigration } from './0120_sentence_ids_from_one.js';
import { transcriptKeptSpeakersMigration } from './0121_transcript_kept_speakers.js';
import { taskSearchMigration } from './0130_task_search.js';
import { webhooksMigration } from './0200_webhooks.js';
import { importsMigration } from './0300_imports.js';
import { subtitlesMigration } from './0400_subtitles.js';
import { broadcastsMigration } from './0500_broadcasts.js';
import { broadcastHostsMigration } from './0501_broadcast_hosts.js';
import { broadcastLiveSinceMigration } from './0502_broadcast_live_since.js';
import { broadcastRecordingsMigration } from './0503_broadcast_recordings.js';
import { broadcastHostLeaseMigration } from './0504_broadcast_host_lease.js';
import { broadcastCaptionSinksMigration } from './0510_broadcast_caption_sinks.js';
import { broadcastTtsLanguagesMigration } from './0511_broadcast_tts_languages.js';
import { broadcastCatchUpsMigration } from './0520_broadcast_catch_ups.js';
import { liveRecordingsMigration } from './0600_live_recordings.js';
import { authEpochMigration } from './0700_auth_epoch.js';
import { sentenceRevisionsMigration } from './0800_sentence_revisions.js';

export const MIGRATIONS: Migration[] = [
  accountsKeysMigration,
  jobsMigration,
  jobFairnessMigration,
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
  sentenceRevisionsMigration,
];
