/**
 * Caption sinks of broadcasts (table broadcast_caption_sinks, migration 0510): the host's
 * settings and the delivery status the hosting node reports after each POST.
 */
import type { Database } from '../../store/database.js';
import type { BroadcastCaptionSinksTable } from '../tables.js';
import type { SinkKind } from './protocol.js';
import type { SinkInput } from './rules.js';

export type SinkState = 'idle' | 'ok' | 'retrying' | 'failed';

export interface CaptionSink extends SinkInput {
  id: string;
  broadcastId: string;
  state: SinkState;
  seqUsed: number;
  lastSeq: number | null;
  captionsSent: number;
  captionsDropped: number;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  createdAt: string;
  updatedAt: string;
}

function fromRow(r: BroadcastCaptionSinksTable): CaptionSink {
  return {
    id: r.id,
    broadcastId: r.broadcast_id,
    kind: r.kind as SinkKind,
    url: r.url,
    language: r.language,
    region: r.region,
    lineLength: r.line_length === null ? null : Number(r.line_length),
    state: r.state as SinkState,
    seqUsed: Number(r.seq_used),
    lastSeq: r.last_seq === null ? null : Number(r.last_seq),
    captionsSent: Number(r.captions_sent),
    captionsDropped: Number(r.captions_dropped),
    lastSuccessAt: r.last_success_at,
    lastError: r.last_error,
    lastErrorAt: r.last_error_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** What one delivery outcome changes. */
export type SinkReport =
  | { outcome: 'sent'; seq: number; captions: number; at: Date }
  | { outcome: 'retrying'; seq: number; error: string; at: Date }
  | { outcome: 'failed'; seq: number; captions: number; error: string; at: Date }
  | { outcome: 'dropped'; captions: number; at: Date };

export class CaptionSinkStore {
  constructor(private readonly database: Database) {}

  async list(broadcastId: string): Promise<CaptionSink[]> {
    const rows = await this.database.db
      .selectFrom('broadcast_caption_sinks')
      .selectAll()
      .where('broadcast_id', '=', broadcastId)
      .orderBy('position')
      .execute();
    return rows.map(fromRow);
  }

  /**
   * Sets the broadcast's sinks to `inputs`. A sink listed again (same type, URL and language)
   * keeps its id, sequence and status, so a change of another sink does not restart it.
   */
  async replace(broadcastId: string, inputs: SinkInput[], newId: () => string, now: Date): Promise<CaptionSink[]> {
    const at = now.toISOString();
    await this.database.db.transaction().execute(async (trx) => {
      const existing = (await trx.selectFrom('broadcast_caption_sinks').selectAll().where('broadcast_id', '=', broadcastId).execute()).map(
        fromRow,
      );
      const kept = new Set<string>();
      for (const [position, s] of inputs.entries()) {
        const same = existing.find((e) => !kept.has(e.id) && e.kind === s.kind && e.url === s.url && e.language === s.language);
        if (same) {
          kept.add(same.id);
          await trx
            .updateTable('broadcast_caption_sinks')
            .set({ position, region: s.region, line_length: s.lineLength, updated_at: at })
            .where('id', '=', same.id)
            .execute();
          continue;
        }
        await trx
          .insertInto('broadcast_caption_sinks')
          .values({
            id: newId(),
            broadcast_id: broadcastId,
            position,
            kind: s.kind,
            url: s.url,
            language: s.language,
            region: s.region,
            line_length: s.lineLength,
            state: 'idle',
            seq_used: 0,
            last_seq: null,
            captions_sent: 0,
            captions_dropped: 0,
            last_success_at: null,
            last_error: null,
            last_error_at: null,
            created_at: at,
            updated_at: at,
          })
          .execute();
      }
      const gone = existing.filter((e) => !kept.has(e.id)).map((e) => e.id);
      if (gone.length > 0) await trx.deleteFrom('broadcast_caption_sinks').where('id', 'in', gone).execute();
    });
    return this.list(broadcastId);
  }

  /** The hosting node's report of one delivery outcome (a removed sink is not brought back). */
  async report(id: string, r: SinkReport): Promise<void> {
    const at = r.at.toISOString();
    await this.database.db
      .updateTable('broadcast_caption_sinks')
      .set((eb) => {
        switch (r.outcome) {
          case 'sent':
            return {
              state: 'ok',
              seq_used: r.seq,
              last_seq: r.seq,
              captions_sent: eb('captions_sent', '+', r.captions),
              last_success_at: at,
              updated_at: at,
            };
          case 'retrying':
            return { state: 'retrying', seq_used: r.seq, last_error: r.error, last_error_at: at, updated_at: at };
          case 'failed':
            return {
              state: 'failed',
              seq_used: r.seq,
              captions_dropped: eb('captions_dropped', '+', r.captions),
              last_error: r.error,
              last_error_at: at,
              updated_at: at,
            };
          case 'dropped':
            return { captions_dropped: eb('captions_dropped', '+', r.captions), updated_at: at };
        }
      })
      .where('id', '=', id)
      .execute();
  }
}
