/**
 * Accounts and API keys (Kysely table types). Conventions of src/store/columns.ts: UUID text
 * ids, ISO text timestamps, 0/1 flags, integer milli-points.
 */
import type { Selectable } from 'kysely';

export interface AccountsTable {
  id: string;
  name: string;
  /** 1: every key of the account is refused with auth_account_blocked. */
  blocked: number;
  /** 1: the account's user is disabled (auth_user_disabled). */
  user_disabled: number;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** SHA-256 of the whole key (hex); the key itself is never stored. */
  key_hash: string;
  /** First characters after "svc_", for operators to tell keys apart (not a secret). */
  key_prefix: string;
  expires_at: string | null;
  monthly_spend_limit_milli: number | null;
  max_concurrent_sessions: number | null;
  allow_account_pool: number;
  /** JSON array of CIDR strings; null means unrestricted. */
  ip_rules: string | null;
  webhook_url: string | null;
  /** 64 characters; stored as is because every webhook is signed with it (HMAC needs the secret). */
  webhook_secret: string;
  disabled: number;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface KeyTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
}

/** A key as read from the database. */
export type KeyRow = Selectable<ApiKeysTable>;

/** What authentication needs in one read: the key and its account's flags. */
export interface KeyForAuth extends KeyRow {
  account_blocked: number;
  account_user_disabled: number;
  /**
   * PostgreSQL only: the account's billing epoch (migration 0702) read in the same statement,
   * so the billing read cache can answer this request without a round trip of its own.
   */
  billing_epoch?: number | null;
}
