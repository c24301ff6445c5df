/**
 * A broadcast's latest catch-up summary (table broadcast_catch_ups, migration 0520): one row a
 * broadcast, written by the node that hosts it and read by every node's viewer streams. A write
 * names the revision it replaces, so a host session that lost the broadcast (its lease lapsed
 * and another node took it over) cannot overwrite what the new host wrote.
 */
import { parseJson } from '../../store/columns.js';
import type { Database } from '../../store/database.js';
import type { BroadcastCatchUpsTable } from '../tables.js';

export interface CatchUp {
  broadcastId: string;
  revision: number;
  /** The language the summarizer wrote in; `texts` has it and each translation a translator served. */
  sourceLanguage: string;
  texts: Record<string, string>;
  coversFromMs: number;
  coversToMs: number;
  engine: string;
  generatedAt: string;
}

export type NewCatchUp = Omit<CatchUp, 'broadcastId' | 'revision'>;

function fromRow(r: BroadcastCatchUpsTable): CatchUp {
  return {
    broadcastId: r.broadcast_id,
    revision: Number(r.revision),
    sourceLanguage: r.source_language,
    texts: parseJson<Record<string, string>>(r.texts, {}),
    coversFromMs: Number(r.covers_from_ms),
    coversToMs: Number(r.covers_to_ms),
    engine: r.engine,
    generatedAt: r.generated_at,
  };
}

export class CatchUpStore {
  constructor(private readonly database: Database) {}

  async get(broadcastId: string): Promise<CatchUp | null> {
    const r = await this.database.db
      .selectFrom('broadcast_catch_ups')
      .selectAll()
      .where('broadcast_id', '=', broadcastId)
      .executeTakeFirst();
    return r ? fromRow(r) : null;
  }

  /**
   * Replaces revision `expected` (0: there is none yet) with `next`; the new revision, or null
   * when the stored one is not `expected` any more (another host session wrote since).
   */
  async replace(broadcastId: string, expected: number, next: NewCatchUp): Promise<number | null> {
    const values = {
      source_language: next.sourceLanguage,
      texts: JSON.stringify(next.texts),
      covers_from_ms: next.coversFromMs,
      covers_to_ms: next.coversToMs,
      engine: next.engine,
      generated_at: next.generatedAt,
    };
    if (expected === 0) {
      const rows = await this.database.db
        .insertInto('broadcast_catch_ups')
        .values({ broadcast_id: broadcastId, revision: 1, ...values })
        .onConflict((oc) => oc.column('broadcast_id').doNothing())
        .returning('revision')
        .execute();
      return rows.length === 1 ? 1 : null;
    }
    const r = await this.database.db
      .updateTable('broadcast_catch_ups')
      .set({ revision: expected + 1, ...values })
      .where('broadcast_id', '=', broadcastId)
      .where('revision', '=', expected)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1 ? expected + 1 : null;
  }

  /** The host turned catch-up off: what late joiners would have read is gone. */
  async remove(broadcastId: string): Promise<void> {
    await this.database.db.deleteFrom('broadcast_catch_ups').where('broadcast_id', '=', broadcastId).execute();
  }
}
