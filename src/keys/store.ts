/** Store operations for accounts and API keys (the only SQL of this feature). */
import { randomUUID } from 'node:crypto';
import { type CompiledQuery, type Expression, type Selectable, type SqlBool, sql, type Updateable } from 'kysely';
import type { ChangeVersions } from '../store/change-feed.js';
import type { Database, Executor } from '../store/database.js';
import { precompile } from '../store/precompiled.js';
import { KeyLookupBatch } from './auth-batch.js';
import { feedAuthVersion, KeyLookupCache, SqliteAuthEpoch } from './auth-cache.js';
import type { AccountsTable, ApiKeysTable, KeyForAuth, KeyRow } from './tables.js';

export type { KeyForAuth, KeyRow } from './tables.js';
export type AccountRow = Selectable<AccountsTable>;
export type KeyPatch = Omit<Updateable<ApiKeysTable>, 'id' | 'account_id' | 'key_hash' | 'key_prefix' | 'created_at'>;

export class KeyStore {
  private authQuery: ((values: { hash: string }) => CompiledQuery) | undefined;
  private authBatchQuery: ((values: { hashes: string[] }) => CompiledQuery) | undefined;

  /** PostgreSQL: the lookups of requests that arrive together, in one statement (auth-batch.ts). */
  private readonly batch: KeyLookupBatch | undefined;

  /**
   * Lookups by key hash, checked against the version of keys and accounts on every use
   * (auth-cache.ts): SQLite's auth epoch, or PostgreSQL's change feed when there is one.
   */
  private readonly lookups: KeyLookupCache | undefined;

  /**
   * PostgreSQL with caching on: the lookup also reads the account's billing epoch (one more
   * indexed row in the same statement), so a request whose key was read from the database (the
   * change feed not listening, or the key's first request) still answers GET /me/plan and the
   * like from the billing read cache (src/billing/read-cache.ts).
   */
  private readonly withBillingEpoch: boolean;

  constructor(
    private readonly database: Database,
    options: { cacheLookups?: boolean; changes?: ChangeVersions } = {},
  ) {
    const caching = options.cacheLookups !== false;
    if (caching && database.sqlite) this.lookups = new KeyLookupCache(new SqliteAuthEpoch(database.sqlite));
    else if (caching && options.changes) this.lookups = new KeyLookupCache(feedAuthVersion(options.changes));
    this.withBillingEpoch = caching && database.dialect === 'postgres';
    if (database.dialect === 'postgres') this.batch = new KeyLookupBatch((hashes) => this.readManyForAuth(hashes));
  }

  private get db() {
    return this.database.db;
  }

  async createAccount(name: string, now: Date): Promise<AccountRow> {
    const row: AccountRow = { id: randomUUID(), name, blocked: 0, user_disabled: 0, created_at: now.toISOString() };
    await this.db.insertInto('accounts').values(row).execute();
    return row;
  }

  async findAccount(id: string): Promise<AccountRow | null> {
    return (await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async countAccounts(): Promise<number> {
    const r = await this.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async setAccountFlags(id: string, flags: { blocked?: boolean; userDisabled?: boolean }): Promise<boolean> {
    const set: Partial<AccountsTable> = {};
    if (flags.blocked !== undefined) set.blocked = flags.blocked ? 1 : 0;
    if (flags.userDisabled !== undefined) set.user_disabled = flags.userDisabled ? 1 : 0;
    const r = await this.db.updateTable('accounts').set(set).where('id', '=', id).executeTakeFirst();
    this.lookups?.invalidate();
    return Number(r.numUpdatedRows) > 0;
  }

  async insertKey(row: KeyRow): Promise<void> {
    await this.db.insertInto('api_keys').values(row).execute();
  }

  /**
   * The key with this hash and its account's flags, deleted keys included (the caller decides).
   * Runs on every authenticated request: a found key is kept while the version of keys and
   * accounts stays the same (auth-cache.ts); reads go to the database through one compiled
   * statement, on PostgreSQL the lookups of requests that arrive together as one (auth-batch.ts),
   * read after each of them began.
   */
  async findForAuth(keyHash: string): Promise<KeyForAuth | null> {
    const version = this.lookups?.version();
    if (version !== undefined) {
      const cached = this.lookups?.get(keyHash, version);
      if (cached) return cached;
    }
    const row = await (this.batch ? this.batch.get(keyHash) : this.readForAuth(keyHash));
    if (row && version !== undefined) this.lookups?.set(keyHash, row, version);
    return row;
  }

  /** The key and its account's flags (and, PostgreSQL, the account's billing epoch). */
  private authLookup(match: Expression<SqlBool>) {
    const lookup = this.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .selectAll('api_keys')
      .select(['accounts.blocked as account_blocked', 'accounts.user_disabled as account_user_disabled'])
      .where(match);
    // The billing epoch belongs to billing (migration 0702); it is read here so that the
    // request's one statement also tells billing whether its cached reads still hold.
    return this.withBillingEpoch
      ? lookup
          .leftJoin('billing_epoch', 'billing_epoch.account_id', 'api_keys.account_id')
          .select((eb) => eb.fn.coalesce('billing_epoch.epoch', eb.lit(0)).as('billing_epoch'))
      : lookup;
  }

  private async readForAuth(keyHash: string): Promise<KeyForAuth | null> {
    this.authQuery ??= precompile<'hash'>((param) => this.authLookup(sql<boolean>`api_keys.key_hash = ${param('hash')}`));
    const r = await this.db.executeQuery<KeyForAuth>(this.authQuery({ hash: keyHash }));
    return r.rows[0] ?? null;
  }

  private async readManyForAuth(hashes: string[]): Promise<KeyForAuth[]> {
    this.authBatchQuery ??= precompile<'hashes'>((param) =>
      this.authLookup(sql<boolean>`api_keys.key_hash = any(${param('hashes')}::text[])`),
    );
    const query = this.authBatchQuery({ hashes });
    // A named statement: the server plans this join once per connection, not on every request.
    if (this.database.prepared)
      return this.database.prepared<KeyForAuth>(this.withBillingEpoch ? 'parley_key_lookup_epoch' : 'parley_key_lookup', query);
    return (await this.db.executeQuery<KeyForAuth>(query)).rows;
  }

  /** A key that is not deleted. */
  async getKey(id: string): Promise<KeyRow | null> {
    return (
      (await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst()) ?? null
    );
  }

  async listKeys(accountId?: string): Promise<KeyRow[]> {
    let q = this.db.selectFrom('api_keys').selectAll().where('deleted_at', 'is', null);
    if (accountId) q = q.where('account_id', '=', accountId);
    return q.orderBy('created_at').orderBy('id').execute();
  }

  /** Active keys of an account that have a webhook URL (credit notifications go to each). */
  async keysWithWebhook(accountId: string, now: Date, within: Executor = this.db): Promise<KeyRow[]> {
    return within
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .where('disabled', '=', 0)
      .where('webhook_url', 'is not', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now.toISOString())]))
      .execute();
  }

  async updateKey(id: string, patch: KeyPatch, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('api_keys')
      .set({ ...patch, updated_at: now.toISOString() })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    this.lookups?.invalidate();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Soft delete: the row stays for usage history; the key no longer authenticates or gets notifications. */
  async deleteKey(id: string, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('api_keys')
      .set({ deleted_at: now.toISOString(), updated_at: now.toISOString() })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    this.lookups?.invalidate();
    return Number(r.numUpdatedRows) > 0;
  }
}
