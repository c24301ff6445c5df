/**
 * Revisions of corrected sentences (table `sentence_revisions`, migration 0800) and the write of
 * a change: the new revision and, for a stored transcript, the sentence row itself, in one
 * transaction. Two changes made on the same revision collide on the primary key: exactly one
 * is stored, the other reads null (sentence_revision_conflict).
 */
import { parseJson } from '../store/columns.js';
import type { Database } from '../store/database.js';
import type { RevisionKind, SentenceVersion } from './rules.js';
import type { SentenceRevisionsTable } from './tables.js';

export interface RevisionRecord extends SentenceVersion {
  revision: number;
  kind: RevisionKind;
  basedOn: number | null;
  createdAt: string;
}

export interface RevisionWrite {
  /** The revision the change was made on (0 when the sentence was never corrected). */
  current: number;
  /** The sentence as recognized: stored as revision 0 with the first change. */
  recognized: SentenceVersion;
  kind: 'correction' | 'undo';
  basedOn: number | null;
  version: SentenceVersion;
  /** Also write the sentence row (a stored transcript; a live recording writes its sentences at the end). */
  updateSentence: boolean;
}

const json = (v: Record<string, string> | null) => (v && Object.keys(v).length ? JSON.stringify(v) : null);

function toRecord(r: SentenceRevisionsTable): RevisionRecord {
  return {
    revision: Number(r.revision),
    kind: r.kind as RevisionKind,
    basedOn: r.based_on === null ? null : Number(r.based_on),
    origin: r.origin,
    translations: parseJson<Record<string, string> | null>(r.translations, null),
    translationErrors: parseJson<Record<string, string> | null>(r.translation_errors, null),
    createdAt: r.created_at,
  };
}

function isDuplicate(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === '23505' || (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT'));
}

export class CorrectionStore {
  constructor(
    private readonly database: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get db() {
    return this.database.db;
  }

  /** Every revision of a sentence, oldest first (empty when it was never corrected). */
  async history(taskId: string, sid: number): Promise<RevisionRecord[]> {
    const rows = await this.db
      .selectFrom('sentence_revisions')
      .selectAll()
      .where('task_id', '=', taskId)
      .where('sid', '=', sid)
      .orderBy('revision')
      .execute();
    return rows.map(toRecord);
  }

  /** The latest revision of a sentence, or null when it was never corrected (revision 0). */
  async latest(taskId: string, sid: number): Promise<RevisionRecord | null> {
    const row = await this.db
      .selectFrom('sentence_revisions')
      .selectAll()
      .where('task_id', '=', taskId)
      .where('sid', '=', sid)
      .orderBy('revision', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /** Stores a change; returns its revision, or null when another change took that revision first. */
  async write(taskId: string, sid: number, w: RevisionWrite): Promise<number | null> {
    const revision = w.current + 1;
    const at = this.now().toISOString();
    try {
      await this.db.transaction().execute(async (trx) => {
        const row = (n: number, kind: RevisionKind, basedOn: number | null, v: SentenceVersion) => ({
          task_id: taskId,
          sid,
          revision: n,
          kind,
          based_on: basedOn,
          origin: v.origin,
          translations: json(v.translations),
          translation_errors: json(v.translationErrors),
          created_at: at,
        });
        const rows = [row(revision, w.kind, w.basedOn, w.version)];
        if (w.current === 0) rows.unshift(row(0, 'recognized', null, w.recognized));
        await trx.insertInto('sentence_revisions').values(rows).execute();
        if (w.updateSentence) {
          await trx
            .updateTable('sentences')
            .set({
              origin: w.version.origin,
              translations: json(w.version.translations),
              translation_errors: json(w.version.translationErrors),
            })
            .where('task_id', '=', taskId)
            .where('sid', '=', sid)
            .execute();
        }
      });
    } catch (err) {
      if (isDuplicate(err)) return null;
      throw err;
    }
    return revision;
  }
}
