/**
 * Accounts and API keys: creation (the key is shown once), settings, flags, deletion, and
 * the read models other features need (the key settings of /me/key, billing's key policy,
 * webhook targets).
 */
import { randomUUID } from 'node:crypto';
import type { KeyPolicy, KeyPolicySource } from '../billing/key-policy.js';
import { AppError } from '../platform/errors/app-error.js';
import { toMilli } from '../store/columns.js';
import { policyOf } from './authenticator.js';
import { generateApiKey, generateWebhookSecret, hashKey } from './format.js';
import { IpRuleError, parseIpRule } from './ip-rules.js';
import type { KeyPatch, KeyRow, KeyStore } from './store.js';

export interface KeySettingsInput {
  name?: string;
  /** ISO 8601, or null for never. */
  expiresAt?: string | null;
  /** Points per calendar month (UTC), or null for no limit. */
  monthlySpendLimit?: number | null;
  maxConcurrentSessions?: number | null;
  allowAccountPool?: boolean;
  /** CIDR blocks or addresses; null or [] for unrestricted. */
  ipRules?: string[] | null;
  webhookUrl?: string | null;
  disabled?: boolean;
}

export interface CreatedKey {
  api_key: string;
  key_id: string;
  account_id: string;
  webhook_secret: string;
  name: string;
}

/** Checks a key-level webhook URL before it is saved (the webhooks feature sends a signed webhook.verify). */
export type WebhookUrlVerifier = (url: string, secret: string, keyId: string) => Promise<void>;

const MAX_NAME = 100;

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', { message, details: { field } });
}

/** Accepts http(s) URLs only, up to 2048 characters (a key's webhook_url, an import's callback_url). */
export function validateWebhookUrl(raw: string, field = 'webhook_url'): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalid(field, `${field} must be an absolute http or https URL.`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw invalid(field, `${field} must use http or https.`);
  if (raw.length > 2048) throw invalid(field, `${field} is longer than 2048 characters.`);
  return u.toString();
}

/** The URL as /me/key shows it: scheme, host, optional port and path; no credentials, query or fragment. */
export function displayWebhookUrl(raw: string | null): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return null;
  }
}

export class KeyService implements KeyPolicySource {
  /**
   * `verifyWebhookUrl`: the webhooks feature's check of a key-level URL (a signed
   * webhook.verify); without it a URL is only checked for syntax.
   */
  constructor(
    readonly store: KeyStore,
    private readonly now: () => Date,
    private readonly verifyWebhookUrl?: WebhookUrlVerifier,
  ) {}

  async createAccount(name = 'Default account') {
    return this.store.createAccount(name.trim().slice(0, MAX_NAME) || 'Default account', this.now());
  }

  /** Creates a key (and its account when none is given). The key and secret appear only in this result. */
  async createKey(input: KeySettingsInput & { accountId?: string }): Promise<CreatedKey> {
    // Everything is validated (and a webhook URL verified) before anything is written, so a
    // refused request leaves no account or key behind.
    const settings = this.toPatch(input);
    if (input.accountId && !(await this.store.findAccount(input.accountId))) throw invalid('account', `No account ${input.accountId}.`);
    const apiKey = generateApiKey();
    const secret = generateWebhookSecret();
    const id = randomUUID();
    if (settings.webhook_url) await this.verifyWebhookUrl?.(settings.webhook_url, secret, id);
    const accountId = input.accountId ?? (await this.createAccount()).id;
    const now = this.now().toISOString();
    const row: KeyRow = {
      id,
      account_id: accountId,
      name: input.name?.trim() || 'API key',
      key_hash: hashKey(apiKey),
      key_prefix: apiKey.slice(4, 8),
      expires_at: null,
      monthly_spend_limit_milli: null,
      max_concurrent_sessions: null,
      allow_account_pool: 1,
      ip_rules: null,
      webhook_url: null,
      webhook_secret: secret,
      disabled: 0,
      deleted_at: null,
      created_at: now,
      updated_at: now,
      ...settings,
    };
    await this.store.insertKey(row);
    return { api_key: apiKey, key_id: id, account_id: accountId, webhook_secret: secret, name: row.name };
  }

  async updateKey(keyId: string, input: KeySettingsInput): Promise<KeyRow> {
    const key = await this.requireKey(keyId);
    const patch = this.toPatch(input);
    if (patch.webhook_url) await this.verifyWebhookUrl?.(patch.webhook_url, key.webhook_secret, key.id);
    await this.store.updateKey(keyId, patch, this.now());
    return this.requireKey(keyId);
  }

  async deleteKey(keyId: string): Promise<void> {
    if (!(await this.store.deleteKey(keyId, this.now()))) throw invalid('key', `No key ${keyId}.`);
  }

  async setAccountFlags(accountId: string, flags: { blocked?: boolean; userDisabled?: boolean }): Promise<void> {
    if (!(await this.store.setAccountFlags(accountId, flags))) throw invalid('account', `No account ${accountId}.`);
  }

  async requireKey(keyId: string): Promise<KeyRow> {
    const key = await this.store.getKey(keyId);
    if (!key) throw invalid('key', `No key ${keyId}.`);
    return key;
  }

  listKeys(accountId?: string): Promise<KeyRow[]> {
    return this.store.listKeys(accountId);
  }

  /** Billing's view of a key (KeyPolicySource). */
  async keyPolicy(keyId: string): Promise<KeyPolicy | null> {
    const key = await this.store.getKey(keyId);
    return key ? policyOf(key) : null;
  }

  /** Where a key's notifications go, or null when the key is gone, disabled or has no URL. */
  async webhookTarget(keyId: string): Promise<{ url: string | null; secret: string } | null> {
    const key = await this.store.getKey(keyId);
    if (!key || key.disabled === 1) return null;
    return { url: key.webhook_url, secret: key.webhook_secret };
  }

  /** Turns settings input into columns, validating each one. */
  private toPatch(input: KeySettingsInput): KeyPatch {
    const p: KeyPatch = {};
    if (input.name !== undefined) {
      const name = input.name.trim();
      if (!name || name.length > MAX_NAME) throw invalid('name', `name must be 1 to ${MAX_NAME} characters.`);
      p.name = name;
    }
    if (input.expiresAt !== undefined) {
      if (input.expiresAt === null) p.expires_at = null;
      else {
        const t = Date.parse(input.expiresAt);
        if (Number.isNaN(t)) throw invalid('expires_at', 'expires_at must be an ISO 8601 date-time.');
        p.expires_at = new Date(t).toISOString();
      }
    }
    if (input.monthlySpendLimit !== undefined) {
      const v = input.monthlySpendLimit;
      if (v !== null && (!Number.isFinite(v) || v < 0)) throw invalid('monthly_spend_limit', 'monthly_spend_limit must be a number >= 0.');
      p.monthly_spend_limit_milli = v === null ? null : toMilli(v);
    }
    if (input.maxConcurrentSessions !== undefined) {
      const v = input.maxConcurrentSessions;
      if (v !== null && (!Number.isInteger(v) || v < 1))
        throw invalid('max_concurrent_sessions', 'max_concurrent_sessions must be an integer >= 1.');
      p.max_concurrent_sessions = v;
    }
    if (input.allowAccountPool !== undefined) p.allow_account_pool = input.allowAccountPool ? 1 : 0;
    if (input.ipRules !== undefined) {
      if (input.ipRules === null || input.ipRules.length === 0) p.ip_rules = null;
      else {
        try {
          const rules = input.ipRules.map((r) => r.trim());
          for (const r of rules) parseIpRule(r);
          p.ip_rules = JSON.stringify(rules);
        } catch (err) {
          if (err instanceof IpRuleError) throw invalid('ip_rules', err.message);
          throw err;
        }
      }
    }
    if (input.webhookUrl !== undefined)
      p.webhook_url = input.webhookUrl === null || input.webhookUrl === '' ? null : validateWebhookUrl(input.webhookUrl);
    if (input.disabled !== undefined) p.disabled = input.disabled ? 1 : 0;
    return p;
  }
}
