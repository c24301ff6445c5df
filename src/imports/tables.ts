/**
 * Import records (Kysely table type). The task an import produces exists from the upload
 * on (`task_id` here); the API shows it only once the import completed.
 */
export interface ImportsTable {
  import_id: string;
  account_id: string;
  key_id: string;
  task_id: string;
  /** pending | processing | completed | failed */
  status: string;
  /** converting | transcribing | translating | summarizing, while processing */
  stage: string | null;
  progress: number;
  message: string | null;
  original_filename: string;
  file_size_bytes: number;
  /** mp3 | wav | m4a (decided from content). */
  format: string;
  duration_ms: number;
  /** The uploaded file in the blob store (kept with the task; deleted with it). */
  source_key: string;
  /** JSON of ImportOptions (languages, recognition mode, summary, glossary). */
  options: string;
  callback_url: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface ImportTables {
  imports: ImportsTable;
}
