/**
 * The database schema as Kysely table types. Each feature declares its own tables next to
 * its store (`src/<feature>/tables.ts`) and they are composed here, one line per feature.
 */

import type { BillingTables } from '../billing/tables.js';
import type { BroadcastTables } from '../broadcasts/tables.js';
import type { CorrectionTables } from '../corrections/tables.js';
import type { ImportTables } from '../imports/tables.js';
import type { JobTables } from '../jobs/tables.js';
import type { KeyTables } from '../keys/tables.js';
import type { PlanTables } from '../plans/tables.js';
import type { LiveRecordingTables } from '../realtime/live/tables.js';
import type { SearchTables } from '../search/tables.js';
import type { SubtitleTables } from '../subtitles/tables.js';
import type { TaskTables } from '../tasks/tables.js';
import type { TicketTables } from '../tickets/tables.js';
import type { WebhookTables } from '../webhooks/tables.js';
import type { MigrationTables } from './migrate.js';

export interface Schema
  extends MigrationTables,
    KeyTables,
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
