/**
 * The Authenticator behind every REST, SSE and WebSocket check: one indexed read of the key
 * (by its hash) joined with its account, on every request, so a key that is disabled,
 * expired, restricted or deleted stops working on the very next request.
 */
import type { KeyPolicy } from '../billing/key-policy.js';
import type { Authenticator, AuthInput, Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { fromMilli } from '../store/columns.js';
import { hashKey, isWellFormedKey } from './format.js';
import { compileIpRules } from './ip-rules.js';
import type { KeyForAuth, KeyStore } from './store.js';

export interface KeyPrincipal extends Principal {
  /** The key's billing settings, read in the same query (saves billing a second read). */
  policy: KeyPolicy;
  /**
   * PostgreSQL: the account's billing epoch read in the same query, at this request's start.
   * Only a handler of this very request may use it (see BillingReads: a principal kept longer,
   * e.g. by a live session, would carry an epoch that no longer says anything).
   */
  billingEpoch?: number;
}

export function policyOf(row: {
  allow_account_pool: number;
  monthly_spend_limit_milli: number | null;
  max_concurrent_sessions: number | null;
}): KeyPolicy {
  return {
    allowAccountPool: row.allow_account_pool === 1,
    monthlySpendLimit: row.monthly_spend_limit_milli === null ? null : fromMilli(row.monthly_spend_limit_milli),
    maxConcurrentSessions: row.max_concurrent_sessions,
  };
}

export class KeyAuthenticator implements Authenticator {
  /** Compiled IP rules by their JSON text: the cache key is the rule text itself, so it is never stale. */
  private readonly ipMatchers = new Map<string, (ip: string) => boolean>();

  constructor(
    private readonly store: KeyStore,
    private readonly now: () => Date,
  ) {}

  async authenticate(input: AuthInput): Promise<KeyPrincipal> {
    const key = input.apiKey;
    if (key === undefined || key === '') throw new AppError('auth_missing_api_key');
    if (!isWellFormedKey(key)) throw new AppError('auth_invalid_key_format');
    let row: KeyForAuth | null;
    try {
      row = await this.store.findForAuth(hashKey(key));
    } catch (err) {
      // The key store is unreachable: the spec's auth_service_error, not a generic 500.
      throw new AppError('auth_service_error', { cause: err });
    }
    if (!row || row.deleted_at !== null) throw new AppError('auth_invalid_api_key');
    this.check(row, input.ip);
    const epoch = row.billing_epoch;
    return {
      accountId: row.account_id,
      keyId: row.id,
      policy: policyOf(row),
      billingEpoch: epoch === undefined || epoch === null ? undefined : Number(epoch),
    };
  }

  /** The checks that apply to a key again at WebSocket start (the ticket's key). */
  check(row: KeyForAuth, ip: string | undefined): void {
    if (row.account_blocked === 1) throw new AppError('auth_account_blocked');
    if (row.account_user_disabled === 1) throw new AppError('auth_user_disabled');
    if (row.disabled === 1) throw new AppError('auth_key_disabled');
    if (row.expires_at !== null && row.expires_at <= this.now().toISOString()) throw new AppError('auth_key_expired');
    if (row.ip_rules !== null && ip !== undefined && !this.ipAllowed(row.ip_rules, ip)) {
      throw new AppError('auth_ip_not_allowed', { details: { ip } });
    }
  }

  private ipAllowed(rulesJson: string, ip: string): boolean {
    let match = this.ipMatchers.get(rulesJson);
    if (!match) {
      match = compileIpRules(JSON.parse(rulesJson) as string[]);
      if (this.ipMatchers.size > 1000) this.ipMatchers.clear();
      this.ipMatchers.set(rulesJson, match);
    }
    return match(ip);
  }
}
