/**
 * Ticket storage. Tickets are stored as SHA-256 hashes (a leaked table cannot be replayed).
 * Consumption is one statement (DELETE ... RETURNING on both dialects), so two connects
 * racing with one ticket cannot both win. The used or expired ticket leaves a tombstone
 * for `tombstoneMs`, which tells `ticket_already_used` / `ticket_expired` apart from
 * `ticket_invalid`.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../store/database.js';

export type ConsumeResult =
  | { ok: true; accountId: string; keyId: string }
  | { ok: false; reason: 'ticket_invalid' | 'ticket_expired' | 'ticket_already_used' };

export function hashTicket(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}

export class TicketStore {
  constructor(
    private readonly database: Database,
    private readonly tombstoneMs = 3_600_000,
  ) {}

  async issue(ticket: string, input: { accountId: string; keyId: string; expiresAt: Date; now: Date }): Promise<void> {
    await this.database.db
      .insertInto('tickets')
      .values({
        ticket_hash: hashTicket(ticket),
        account_id: input.accountId,
        key_id: input.keyId,
        expires_at: input.expiresAt.toISOString(),
        created_at: input.now.toISOString(),
      })
      .execute();
  }

  async consume(ticket: string, now: Date): Promise<ConsumeResult> {
    const hash = hashTicket(ticket);
    const { db } = this.database;
    const row = await db
      .deleteFrom('tickets')
      .where('ticket_hash', '=', hash)
      .returning(['account_id', 'key_id', 'expires_at'])
      .executeTakeFirst();
    const forgetAt = new Date(now.getTime() + this.tombstoneMs).toISOString();
    if (row) {
      const expired = row.expires_at <= now.toISOString();
      await db
        .insertInto('ticket_tombstones')
        .values({ ticket_hash: hash, reason: expired ? 'expired' : 'used', forget_at: forgetAt })
        .onConflict((oc) => oc.column('ticket_hash').doUpdateSet({ reason: expired ? 'expired' : 'used', forget_at: forgetAt }))
        .execute();
      return expired ? { ok: false, reason: 'ticket_expired' } : { ok: true, accountId: row.account_id, keyId: row.key_id };
    }
    const tomb = await db
      .selectFrom('ticket_tombstones')
      .select(['reason', 'forget_at'])
      .where('ticket_hash', '=', hash)
      .executeTakeFirst();
    if (tomb && tomb.forget_at > now.toISOString())
      return { ok: false, reason: tomb.reason === 'expired' ? 'ticket_expired' : 'ticket_already_used' };
    return { ok: false, reason: 'ticket_invalid' };
  }

  /** Moves long-expired tickets to tombstones and forgets old tombstones (called now and then). */
  async sweep(now: Date): Promise<void> {
    const { db } = this.database;
    const nowIso = now.toISOString();
    const expired = await db.deleteFrom('tickets').where('expires_at', '<=', nowIso).returning(['ticket_hash']).execute();
    const forgetAt = new Date(now.getTime() + this.tombstoneMs).toISOString();
    for (const r of expired) {
      await db
        .insertInto('ticket_tombstones')
        .values({ ticket_hash: r.ticket_hash, reason: 'expired', forget_at: forgetAt })
        .onConflict((oc) => oc.column('ticket_hash').doNothing())
        .execute();
    }
    await db.deleteFrom('ticket_tombstones').where('forget_at', '<=', nowIso).execute();
  }
}
