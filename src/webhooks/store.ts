/** The outbox's SQL: delivery rows and the attempt log. */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Database, Executor } from '../store/database.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from './tables.js';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export class WebhookStore {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.db;
  }

  /** Inserts a pending delivery; false when a row with the same dedupe key exists already. */
  async insert(row: DeliveryRow, within: Executor = this.db): Promise<boolean> {
    const r = await within
      .insertInto('webhook_deliveries')
      .values(row)
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async get(id: string, within: Executor = this.db): Promise<DeliveryRow | null> {
    return (await within.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  }

  /** waiting -> pending for rows queued behind `afterId`; returns the ids released. */
  async release(afterId: string, now: Date, within: Executor = this.db): Promise<string[]> {
    const rows = await within
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', updated_at: now.toISOString() })
      .where('after_id', '=', afterId)
      .where('status', '=', 'waiting')
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** Predecessors of waiting rows that have had their first attempt or ended (restart sweep). */
  async releasablePredecessors(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries as w')
      .innerJoin('webhook_deliveries as a', 'a.id', 'w.after_id')
      .select('a.id')
      .where('w.status', '=', 'waiting')
      .where((eb) => eb.or([eb('a.attempts', '>', 0), eb('a.status', '!=', 'pending')]))
      .distinct()
      .execute();
    return rows.map((r) => r.id);
  }

  /** Pending rows not touched since `before` (all pending rows without it). */
  async pendingIds(before?: Date): Promise<string[]> {
    let q = this.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending');
    if (before) q = q.where('updated_at', '<', before.toISOString());
    return (await q.execute()).map((r) => r.id);
  }

  async setStatus(id: string, status: string, lastError: string | null, now: Date): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ status, last_error: lastError, updated_at: now.toISOString() })
      .where('id', '=', id)
      .execute();
  }

  /** Logs one attempt and bumps the delivery's counter; returns the attempt number. */
  async recordAttempt(
    delivery: DeliveryRow,
    a: { url: string; startedAt: Date; statusCode: number | null; error: string | null; durationMs: number },
  ): Promise<number> {
    const attempt = delivery.attempts + 1;
    await this.db.transaction().execute(async (tx) => {
      await tx
        .insertInto('webhook_attempts')
        .values({
          id: randomUUID(),
          delivery_id: delivery.id,
          attempt,
          url: a.url,
          started_at: a.startedAt.toISOString(),
          status_code: a.statusCode,
          error: a.error,
          duration_ms: a.durationMs,
        })
        .execute();
      await tx
        .updateTable('webhook_deliveries')
        .set({ attempts: attempt, last_error: a.error, updated_at: a.startedAt.toISOString() })
        .where('id', '=', delivery.id)
        .execute();
    });
    delivery.attempts = attempt;
    return attempt;
  }

  async attempts(deliveryId: string): Promise<AttemptRow[]> {
    return this.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();
  }
}
