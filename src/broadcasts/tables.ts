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
  /** JSON string[]: the languages viewers can listen to, set by the hosting node (migration 0511); null before a host started. */
  tts_languages: string | null;
  /** 1: late joiners get the catch-up summary (the host's switch, migration 0520); 0: off. */
  catch_up: number;
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

/** A caption sink (migration 0510; src/broadcasts/sinks/): settings and the hosting node's delivery status. */
export interface BroadcastCaptionSinksTable {
  id: string;
  broadcast_id: string;
  /** Order in the broadcast's list. */
  position: number;
  /** youtube | zoom */
  kind: string;
  /** The full caption URL, credentials included (never shown whole). */
  url: string;
  /** A translation language of the broadcast, or null for the source text. */
  language: string | null;
  /** YouTube only: the `region:` tag of each caption line. */
  region: string | null;
  /** Characters per caption line (line breaks inserted), or null for none. */
  line_length: number | null;
  /** idle | ok | retrying | failed */
  state: string;
  /** The last `seq` used in a POST (the next caption gets one more). */
  seq_used: number;
  /** The `seq` of the last POST the service accepted. */
  last_seq: number | null;
  captions_sent: number;
  captions_dropped: number;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A broadcast's latest catch-up summary for late joiners (migration 0520; src/broadcasts/catch-up/). */
export interface BroadcastCatchUpsTable {
  broadcast_id: string;
  /** Bumped by every write; a write names the revision it replaces. */
  revision: number;
  /** The language the summarizer wrote (the first transcription language); the others are its translations. */
  source_language: string;
  /** JSON map language -> plain text (the source language and each translation language a translator served). */
  texts: string;
  /** The sentences summarized started from here to here, ms from going live. */
  covers_from_ms: number;
  covers_to_ms: number;
  /** The summarizer engine that wrote it. */
  engine: string;
  generated_at: string;
}

export interface BroadcastTables {
  broadcasts: BroadcastsTable;
  broadcast_recordings: BroadcastRecordingsTable;
  broadcast_caption_sinks: BroadcastCaptionSinksTable;
  broadcast_catch_ups: BroadcastCatchUpsTable;
  broadcast_viewer_tokens: BroadcastViewerTokensTable;
}
