/**
 * The search index (migration 0130_task_search): written only by database triggers on tasks,
 * sentences and transcripts, and by the live indexer for finals not stored yet
 * (live-index.ts). PostgreSQL adds a generated `tsv` column and SQLite an FTS5 table
 * (`search_fts`); neither is named in Kysely types: the queries that use them are raw SQL
 * in store.ts.
 */

/** title | transcript | translation | summary | speaker */
export type SearchField = 'title' | 'transcript' | 'translation' | 'summary' | 'speaker';

export interface SearchEntriesTable {
  id: number;
  account_id: string;
  task_id: string;
  kind: SearchField;
  /** The sentence (transcript and translation entries). */
  sid: number | null;
  /** The sentence's language, the translation's, or the summary's; null for titles and speaker names. */
  language: string | null;
  /** The sentence's original speaker id, or the speaker a name belongs to. */
  speaker_id: string | null;
  start_ms: number | null;
  end_ms: number | null;
  body: string;
}

export interface SearchTables {
  search_entries: SearchEntriesTable;
}
