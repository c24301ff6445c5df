/**
 * Broadcast rows and viewer access tokens. Tokens are unique among usable broadcasts through
 * the unique `token_claim` column (set while pending or active, cleared at the end or on
 * revoke), so an insert that loses a token race does nothing and the service draws again.
 */
import type { Database } from '../store/database.js';
import { type Broadcast, type BroadcastPhase, type BroadcastStatus, fromRow, type NewBroadcast, settingsColumns } from './records.js';
import type { BroadcastSettings } from './rules.js';

export { type Broadcast, type BroadcastPhase, type BroadcastStatus, type NewBroadcast, USABLE } from './records.js';

export class BroadcastStore {
  constructor(private readonly database: Database) {}

  /** Inserts the broadcast; false when its token is taken by a usable broadcast (draw another). */
  async insert(b: NewBroadcast): Promise<boolean> {
    const at = b.now.toISOString();
    const rows = await this.database.db
      .insertInto('broadcasts')
      .values({
        id: b.id,
        account_id: b.accountId,
        key_id: b.keyId,
        token: b.token,
        token_claim: b.token,
        name: b.settings.name,
        pass_code_hash: b.passCodeHash,
        access_version: 1,
        ...settingsColumns(b.settings),
        status: 'pending',
        phase: null,
        task_id: null,
        host_key_id: null,
        frozen_at: null,
        live_since: null,
        host_lease_until: null,
        host_session: null,
        tts_languages: null,
        peak_viewers: 0,
        total_viewers: 0,
        created_at: at,
        updated_at: at,
        started_at: null,
        ended_at: null,
        revoked_at: null,
      })
      .onConflict((oc) => oc.column('token_claim').doNothing())
      .returning('id')
      .execute();
    return rows.length === 1;
  }

  async get(id: string): Promise<Broadcast | null> {
    const r = await this.database.db.selectFrom('broadcasts').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? fromRow(r) : null;
  }

  /** The broadcast a viewer token names: the usable one, else the newest that had it (ended or revoked). */
  async findByToken(token: string): Promise<Broadcast | null> {
    const usable = await this.database.db.selectFrom('broadcasts').selectAll().where('token_claim', '=', token).executeTakeFirst();
    if (usable) return fromRow(usable);
    const last = await this.database.db
      .selectFrom('broadcasts')
      .selectAll()
      .where('token', '=', token)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return last ? fromRow(last) : null;
  }

  async list(accountId: string, page: number, perPage: number, status: BroadcastStatus | null) {
    let q = this.database.db.selectFrom('broadcasts').where('account_id', '=', accountId);
    if (status) q = q.where('status', '=', status);
    const total = await q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
    const rows = await q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute();
    return { rows: rows.map(fromRow), total: Number(total?.n ?? 0) };
  }

  /**
   * Writes new settings if the broadcast is still in `expectStatus` (a revoke or an end in
   * between wins: false, and the caller reads again). A changed access bumps access_version.
   */
  async update(
    id: string,
    expectStatus: BroadcastStatus,
    s: BroadcastSettings,
    access: { passCodeHash: string | null; bump: boolean } | null,
    now: Date,
  ): Promise<boolean> {
    const r = await this.database.db
      .updateTable('broadcasts')
      .set((eb) => ({
        ...settingsColumns(s),
        updated_at: now.toISOString(),
        ...(access
          ? { pass_code_hash: access.passCodeHash, access_version: access.bump ? eb('access_version', '+', 1) : eb.ref('access_version') }
          : {}),
      }))
      .where('id', '=', id)
      .where('status', '=', expectStatus)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Revokes (any status but revoked): the token is released and every viewer token stops working. */
  async revoke(id: string, now: Date): Promise<boolean> {
    const at = now.toISOString();
    const r = await this.database.db
      .updateTable('broadcasts')
      .set({ status: 'revoked', token_claim: null, phase: null, revoked_at: at, updated_at: at })
      .where('id', '=', id)
      .where('status', '!=', 'revoked')
      .executeTakeFirst();
    await this.database.db.deleteFrom('broadcast_viewer_tokens').where('broadcast_id', '=', id).execute();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * A host starts (or returns to) the broadcast: pending -> active, or an active broadcast
   * without a live host -> active again: frozen (its host dropped), or its host's lease lapsed
   * (the hosting process died without a word). A broadcast whose host holds a current lease,
   * ended or revoked is not taken: null. The phase is kept on a return (the broadcast resumes
   * where it was). The host session gets the lease until `leaseUntil`.
   */
  async beginHost(
    id: string,
    input: { hostKeyId: string; phase: BroadcastPhase; now: Date; session: string; leaseUntil: Date },
  ): Promise<'started' | 'resumed' | null> {
    const at = input.now.toISOString();
    const lease = { host_session: input.session, host_lease_until: input.leaseUntil.toISOString() };
    const started = await this.database.db
      .updateTable('broadcasts')
      .set({
        status: 'active',
        phase: input.phase,
        host_key_id: input.hostKeyId,
        started_at: at,
        frozen_at: null,
        live_since: input.phase === 'live' ? at : null,
        updated_at: at,
        ...lease,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(started.numUpdatedRows) === 1) return 'started';
    const resumed = await this.database.db
      .updateTable('broadcasts')
      .set({ host_key_id: input.hostKeyId, frozen_at: null, updated_at: at, ...lease })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where((eb) => eb.or([eb('frozen_at', 'is not', null), eb('host_lease_until', 'is', null), eb('host_lease_until', '<', at)]))
      .executeTakeFirst();
    return Number(resumed.numUpdatedRows) === 1 ? 'resumed' : null;
  }

  /** The host session renews its lease; false when it no longer holds the broadcast (taken over, frozen, ended). */
  async renewLease(id: string, session: string, until: Date): Promise<boolean> {
    const r = await this.database.db
      .updateTable('broadcasts')
      .set({ host_lease_until: until.toISOString() })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where('host_session', '=', session)
      .where('frozen_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Active broadcasts whose host's lease lapsed before `now` while not frozen (the hosting process died). */
  async lapsedHosts(now: Date): Promise<string[]> {
    const rows = await this.database.db
      .selectFrom('broadcasts')
      .select('id')
      .where('status', '=', 'active')
      .where('frozen_at', 'is', null)
      .where('host_lease_until', '<', now.toISOString())
      .execute();
    return rows.map((r) => r.id);
  }

  /** Freezes a broadcast whose host's lease lapsed, from the lapse; false when another process did it first or a host took it. */
  async freezeLapsed(id: string, now: Date): Promise<boolean> {
    const at = now.toISOString();
    const r = await this.database.db
      .updateTable('broadcasts')
      .set((eb) => ({ frozen_at: eb.ref('host_lease_until'), host_session: null, updated_at: at }))
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where('frozen_at', 'is', null)
      .where('host_lease_until', '<', at)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The hosting node publishes which languages its viewers can listen to (its synthesizers). */
  async setTtsLanguages(id: string, languages: string[]): Promise<void> {
    await this.database.db
      .updateTable('broadcasts')
      .set({ tts_languages: JSON.stringify(languages) })
      .where('id', '=', id)
      .execute();
  }

  /** The task of the host's current recording. */
  async setTask(id: string, taskId: string): Promise<void> {
    await this.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('broadcasts').set({ task_id: taskId }).where('id', '=', id).execute();
      await trx
        .insertInto('broadcast_recordings')
        .values({ task_id: taskId, broadcast_id: id })
        .onConflict((oc) => oc.column('task_id').doNothing())
        .execute();
    });
  }

  /** The phase; going live the first time sets live_since (viewers' start_time counts from it). */
  async setPhase(id: string, phase: BroadcastPhase, now: Date): Promise<void> {
    const at = now.toISOString();
    await this.database.db
      .updateTable('broadcasts')
      .set((eb) => ({
        phase,
        updated_at: at,
        live_since: phase === 'live' ? eb.fn.coalesce('live_since', eb.val(at)) : eb.ref('live_since'),
      }))
      .where('id', '=', id)
      .where('status', '=', 'active')
      .execute();
  }

  /**
   * The host's connection dropped: the broadcast waits for it (frozen) from `now`. Only the
   * session holding the broadcast freezes it (one that was taken over no longer does).
   */
  async freeze(id: string, session: string, now: Date): Promise<boolean> {
    const r = await this.database.db
      .updateTable('broadcasts')
      .set({ frozen_at: now.toISOString(), host_session: null, host_lease_until: null, updated_at: now.toISOString() })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where('host_session', '=', session)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Ends an active broadcast for good (its token is released); false when it was not active. */
  async end(id: string, now: Date): Promise<boolean> {
    const at = now.toISOString();
    const r = await this.database.db
      .updateTable('broadcasts')
      .set({
        status: 'ended',
        token_claim: null,
        phase: null,
        frozen_at: null,
        host_session: null,
        host_lease_until: null,
        ended_at: at,
        updated_at: at,
      })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Active broadcasts frozen since before `cutoff` (their host did not return in time). */
  async frozenSince(cutoff: Date): Promise<Array<{ id: string; token: string }>> {
    return this.database.db
      .selectFrom('broadcasts')
      .select(['id', 'token'])
      .where('status', '=', 'active')
      .where('frozen_at', '<=', cutoff.toISOString())
      .execute();
  }

  /** One more viewer admitted: total + 1, and the peak follows the current count. */
  /** `added` viewers were admitted (total_viewers), `current` is the most seated at once among them (peak_viewers). */
  async countViewer(id: string, current: number, added = 1): Promise<void> {
    await this.database.db
      .updateTable('broadcasts')
      .set((eb) => ({
        total_viewers: eb('total_viewers', '+', added),
        peak_viewers: eb.case().when('peak_viewers', '<', current).then(current).else(eb.ref('peak_viewers')).end(),
      }))
      .where('id', '=', id)
      .execute();
  }

  async issueViewerToken(input: { hash: string; broadcastId: string; accessVersion: number; expiresAt: Date; now: Date }) {
    await this.database.db
      .insertInto('broadcast_viewer_tokens')
      .values({
        token_hash: input.hash,
        broadcast_id: input.broadcastId,
        access_version: input.accessVersion,
        expires_at: input.expiresAt.toISOString(),
        created_at: input.now.toISOString(),
      })
      .execute();
  }

  /** Is this viewer token hash valid for the broadcast's current access now? */
  async viewerTokenValid(hash: string, b: Pick<Broadcast, 'id' | 'accessVersion'>, now: Date): Promise<boolean> {
    const r = await this.database.db
      .selectFrom('broadcast_viewer_tokens')
      .select('token_hash')
      .where('token_hash', '=', hash)
      .where('broadcast_id', '=', b.id)
      .where('access_version', '=', b.accessVersion)
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    return r !== undefined;
  }

  async sweepViewerTokens(now: Date): Promise<void> {
    await this.database.db.deleteFrom('broadcast_viewer_tokens').where('expires_at', '<=', now.toISOString()).execute();
  }
}
