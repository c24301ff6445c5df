/**
 * Broadcast channels and the viewer access tokens of password-protected ones (Kysely table
 * types; migration 0500_broadcasts). A broadcast is one event: `pending` until its host first
 * starts it, `active` while it runs (or waits for its host), then `ended` or `revoked` for good.
 */
export interface BroadcastsTable {
  id: string;
  account_id: string;
  /** The key that created it (the broadcast's webhooks go to the key that starts it). */
  key_id: string;
  /** 4 characters a-z0-9; unique among usable broadcasts (see `token_claim`). */
  token: string;
  /**
   * The token while the broadcast is usable (pending, active), null once ended or revoked: a
   * unique index on this column keeps live tokens unique and lets old ones be reused.
   */
  token_claim: string | null;
  name: string | null;
  /** public | password */
  access_type: string;
  /** scrypt of the pass code (pass-code.ts), null for public channels. */
  pass_code_hash: string | null;
  /** Bumped when the password or the access type changes: older viewer tokens stop working. */
  access_version: number;
  /** JSON string[] (normalized BCP 47 tags, 1..10, distinct). */
  transcription_languages: string;
  /** JSON string[] */
  translation_languages: string;
  speaker_diarization: number;
  max_viewers: number;
  /** JSON map language -> {voice, speaking_rate} */
  tts_config: string;
  summary_template: string | null;
  summary_language: string;
  callback_url: string | null;
  /** pending | active | ended | revoked */
  status: string;
  /** standby | live | paused while a host session runs; null otherwise. */
  phase: string | null;
  /** The task of the broadcast's recording, once started. */
  task_id: string | null;
  peak_viewers: number;
  total_viewers: number;
  /** The key whose host session runs (or last ran) it: the recording's webhooks go to this key. */
  host_key_id: string | null;
  /** Set when the host's connection dropped (frozen); cleared when a host returns. */
  frozen_at: string | null;
  /** When it went live (the start in the live phase, or broadcast_go_live). */
  live_since: string | null;
  /** Until when the hosting process holds the broadcast (renewed while the host is connected). */
  host_lease_until: string | null;
  /** The host session holding the lease (only it renews it). */
  host_session: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  ended_at: string | null;
  revoked_at: string | null;
}

export interface BroadcastViewerTokensTable {
  /** SHA-256 of the viewer_access_token (the token itself is never stored). */
  token_hash: string;
  broadcast_id: string;
  /** The broadcast's access_version when the token was issued. */
  access_version: number;
  expires_at: string;
  created_at: string;
}

/** Each recording (task) a broadcast's hosts made. */
export interface BroadcastRecordingsTable {
  task_id: string;
  broadcast_id: string;
}

export interface BroadcastTables {
  broadcasts: BroadcastsTable;
  broadcast_recordings: BroadcastRecordingsTable;
  broadcast_viewer_tokens: BroadcastViewerTokensTable;
}
