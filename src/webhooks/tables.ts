/**
 * The webhook outbox: one row per notification (its delivery_id is the row id, fixed across
 * attempts) and one row per attempt, for operators. The envelope is stored as sent, so a
 * retry or a resend carries the same body; only the timestamp header and signature change.
 */
export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  key_id: string;
  event: string;
  /** The request-level callback_url, or null to use the key's URL at send time. */
  callback_url: string | null;
  /** The JSON envelope, byte for byte what is sent. */
  body: string;
  /** waiting (for after_id's first attempt) | pending | delivered | failed | cancelled (key deleted or without URL) */
  status: string;
  attempts: number;
  last_error: string | null;
  /** Set when one source event must produce one row even if several processes see it (bus fan-out). */
  dedupe_key: string | null;
  /** Sent only after this delivery's first attempt (spec rule 1: recording.completed then import.completed). */
  after_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  url: string;
  started_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface WebhookTables {
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
