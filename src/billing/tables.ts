/**
 * Billing records (Kysely table types): per-account billing state, credit lots, usage rows,
 * the charges made against each usage row and the lot draws of each charge. Conventions of
 * src/store/columns.ts: UUID text ids, ISO text timestamps, 0/1 flags, integer milli-points.
 *
 * Invariant: sum(usage_records.points_milli) == sum(billing_charges.milli where not refunded)
 * == sum(billing_draws.milli of those charges) == points taken from credit_lots.
 */

export interface BillingAccountsTable {
  account_id: string;
  /** 1 while a `credit.low` event may be published (disarmed after one, re-armed when credit rises). */
  low_armed: number;
  low_notified_at: string | null;
  /** 1 while a `credit.exhausted` event may be published. */
  exhausted_armed: number;
  exhausted_notified_at: string | null;
  updated_at: string;
}

export interface CreditLotsTable {
  id: string;
  account_id: string;
  /** `key` (dedicated allotment of key_id) or `account`. */
  pool: string;
  key_id: string | null;
  granted_milli: number;
  remaining_milli: number;
  /** Null: never expires. */
  expires_at: string | null;
  granted_at: string;
}

export interface UsageRecordsTable {
  id: string;
  account_id: string;
  key_id: string;
  task_id: string | null;
  /** Open enum: recording, broadcast, import, summary, regen_summary, retranslate, summary_translate, ... */
  type: string;
  /** Running total of non-refunded charges. */
  points_milli: number;
  /** Billable minutes (recordings, broadcasts, imports); plan limits count these. */
  minutes: number;
  in_progress: number;
  refunded: number;
  /** `no_audio` (automatic) or `manual`. */
  refund_reason: string | null;
  occurred_at: string;
  ended_at: string | null;
  created_at: string;
}

export interface BillingChargesTable {
  /** Caller's idempotency key (e.g. `<usage id>:m<minute index>`): the same charge twice is charged once. */
  idempotency_key: string;
  usage_id: string;
  account_id: string;
  key_id: string;
  milli: number;
  minutes: number;
  refunded: number;
  created_at: string;
}

export interface BillingDrawsTable {
  charge_key: string;
  lot_id: string;
  milli: number;
}

/**
 * A counter per account that triggers move on every change to its plan, credit lots or charges
 * (migrations 0701 on SQLite, 0702 on PostgreSQL): what the billing read cache checks.
 */
export interface BillingEpochTable {
  account_id: string;
  epoch: number;
}

export interface BillingTables {
  billing_epoch: BillingEpochTable;
  billing_accounts: BillingAccountsTable;
  credit_lots: CreditLotsTable;
  usage_records: UsageRecordsTable;
  billing_charges: BillingChargesTable;
  billing_draws: BillingDrawsTable;
}
