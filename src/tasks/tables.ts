/**
 * Task, transcript and sentence records (Kysely table types). This feature owns them;
 * imports and live sessions write through `TaskStore` (store.ts), never with their own SQL.
 * Conventions of src/store/columns.ts: UUID text ids, ISO text timestamps, 0/1 flags, JSON
 * as text.
 */

export interface TasksTable {
  task_id: string;
  account_id: string;
  /** The key that created the task (webhooks go to it). */
  key_id: string;
  title: string;
  /** `auto` (generated) or `user` (renamed through PATCH .../name). */
  name_source: string;
  /** transcribe | conversation | record | broadcast */
  type: string;
  /** realtime | import | broadcast */
  type_source: string;
  /** single | multi_speaker | multi_language | multi_channel */
  recognition_mode: string;
  duration_ms: number;
  /** JSON array of BCP 47 tags, or null. */
  transcription_languages: string | null;
  translation_languages: string | null;
  processing_status: string;
  is_pinned: number;
  is_unread: number;
  summary_mode: string | null;
  summary_template: string | null;
  summary_language: string | null;
  /** Blob key of the playable audio (M4A), null until stored. */
  audio_key: string | null;
  /** Blob key of the imported source file, when the task came from an import. */
  source_key: string | null;
  /** The import that produced the task (written and read by the imports feature). */
  import_id: string | null;
  /** user_forced | no_audio | processing (why it failed), null unless failed. */
  failure_source: string | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
}

export interface TranscriptsTable {
  task_id: string;
  /** Incremented on every persisted edit (summary save, speaker edit); optimistic check. */
  revision: number;
  /** JSON map original speaker id -> display label (only speakers that were renamed). */
  speaker_labels: string;
  /** JSON array of original speaker ids that exist without sentences (their last sentence was reassigned away). */
  kept_speakers: string;
  summary: string | null;
  summary_language: string | null;
  summary_mode: string | null;
  summary_template: string | null;
  summary_plain_text: number | null;
  summary_prompt_snapshot: string | null;
  summary_fallback_level: number | null;
  /** JSON int array, only with fallback level 3. */
  summary_dropped_segments: string | null;
  created_at: string;
  updated_at: string;
}

export interface SentencesTable {
  task_id: string;
  sid: number;
  origin: string;
  start_ms: number;
  end_ms: number;
  /** Original speaker id from diarization or channel; null without diarization. */
  speaker_id: string | null;
  /** Detected or configured language of the origin text. */
  language: string | null;
  /** JSON map language -> text, or null when nothing was translated. */
  translations: string | null;
  /** JSON map language -> error code (translated but failed), or null. */
  translation_errors: string | null;
}

/** Bumped by triggers on every write of an account's tasks (migration 0110); no row reads as 0. */
export interface TaskListVersionsTable {
  account_id: string;
  version: number;
}

export interface TaskTables {
  tasks: TasksTable;
  task_list_versions: TaskListVersionsTable;
  transcripts: TranscriptsTable;
  sentences: SentencesTable;
}
