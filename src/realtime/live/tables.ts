/**
 * Live recordings as the fleet sees them (migration 0600_live_recordings): which realtime
 * process holds a running recording (its lease), how much of its audio is in the blob store
 * (segments) and the state another process needs to continue or finish it (snapshot).
 * src/realtime/live/ explains the life of a row.
 */
export interface LiveRecordingsTable {
  task_id: string;
  account_id: string;
  key_id: string;
  usage_id: string;
  /** sha256 (hex) of the resume token; null for recordings that cannot be resumed (broadcasts). */
  token_hash: string | null;
  /** live | parked | recovering | ended | grace_expired */
  state: string;
  /** The realtime process holding it (live, recovering); null while parked. */
  instance_id: string | null;
  /** The holder renews it; a live row whose lease lapsed belongs to a process that died. */
  lease_until: string;
  /** Parked rows: a resume after this is too late (the recording is finalized by a sweep). */
  grace_until: string | null;
  /** Segments stored under live/<task_id>/ and the PCM bytes they hold. */
  segments: number;
  bytes: number;
  /** JSON RecordingSnapshot (snapshot.ts), as of the last segment. */
  snapshot: string;
  updated_at: string;
}

export interface LiveRecordingTables {
  live_recordings: LiveRecordingsTable;
}
