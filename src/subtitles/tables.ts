/**
 * Floating-subtitle credentials, stored only as SHA-256 hashes (a leaked table cannot be
 * replayed): feed tokens (owner or audience) and one share per recording.
 */
export interface SubtitleTokensTable {
  token_hash: string;
  task_id: string;
  /** `owner` (from the API key) or `audience` (from a share secret). */
  kind: string;
  /** The share an audience token came from; it stops working when that share is revoked or replaced. */
  share_id: string | null;
  /** Sliding: every use moves it to use time + 900 s. */
  expires_at: string;
  created_at: string;
}

export interface SubtitleSharesTable {
  /** One share per recording: enabling again replaces the row (old links stop working). */
  task_id: string;
  /** New at every enabling; audience tokens carry it. */
  share_id: string;
  secret_hash: string;
  expires_at: string;
  created_at: string;
}

export interface SubtitleTables {
  subtitle_tokens: SubtitleTokensTable;
  subtitle_shares: SubtitleSharesTable;
}
