/**
 * Ticket storage. Tickets are stored as SHA-256 hashes (a leaked table cannot be replayed).
 * Consumption is one DELETE ... RETURNING (both dialects), so two connects racing with one
 * ticket cannot both win. The used or expired ticket leaves a tombstone
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
    const forgetAt = new Date(now.getTime() + this.tombstoneMs).toISOString();
    // The delete and its tombstone commit together: a racing use waits on the deleted row
    // (PostgreSQL row lock; SQLite runs one transaction at a time), then finds the tombstone
    // and is told `ticket_already_used`, never `ticket_invalid`.
    const claimed = await this.database.db.transaction().execute(async (trx) => {
      const row = await trx
        .deleteFrom('tickets')
        .where('ticket_hash', '=', hash)
        .returning(['account_id', 'key_id', 'expires_at'])
        .executeTakeFirst();
      if (!row) return null;
      const reason = row.expires_at <= now.toISOString() ? 'expired' : 'used';
      await trx
        .insertInto('ticket_tombstones')
        .values({ ticket_hash: hash, reason, forget_at: forgetAt })
        .onConflict((oc) => oc.column('ticket_hash').doUpdateSet({ reason, forget_at: forgetAt }))
        .execute();
      return { ...row, reason };
    });
    if (claimed) {
      return claimed.reason === 'expired'
        ? { ok: false, reason: 'ticket_expired' }
        : { ok: true, accountId: claimed.account_id, keyId: claimed.key_id };
    }
    const tomb = await this.database.db
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
