/**
 * The transcript half of the task store (TaskStore extends it): sentences, translations,
 * the summary and speakers of a task's transcript. Task rows themselves are store.ts.
 */
import type { Kysely } from 'kysely';
import { flag, nowIso, parseJson } from '../store/columns.js';
import type { Database } from '../store/database.js';
import type { Schema } from '../store/schema.js';
import {
  CHUNK,
  type Db,
  type SentenceInput,
  type SentenceRecord,
  type SummaryRecord,
  type TranscriptRecord,
  type TranslationInput,
  toSentence,
  toTranscript,
} from './records.js';

export class TranscriptStore {
  constructor(
    protected readonly database: Database,
    protected readonly now: () => Date = () => new Date(),
  ) {}

  protected get db(): Kysely<Schema> {
    return this.database.db;
  }

  /**
   * Adds sentences (or replaces those with the same sid: a live session finalizing a
   * sentence). Creates the transcript record on first use.
   */
  async appendSentences(taskId: string, sentences: SentenceInput[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.ensureTranscript(trx, taskId);
      for (let i = 0; i < sentences.length; i += CHUNK) {
        const rows = sentences.slice(i, i + CHUNK).map((s) => ({
          task_id: taskId,
          sid: s.sid,
          origin: s.origin,
          start_ms: Math.max(0, Math.round(s.startMs)),
          end_ms: Math.max(0, Math.round(s.endMs)),
          speaker_id: s.speakerId ?? null,
          language: s.language ?? null,
          translations: null,
          translation_errors: null,
        }));
        await trx
          .insertInto('sentences')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['task_id', 'sid']).doUpdateSet((eb) => ({
              origin: eb.ref('excluded.origin'),
              start_ms: eb.ref('excluded.start_ms'),
              end_ms: eb.ref('excluded.end_ms'),
              speaker_id: eb.ref('excluded.speaker_id'),
              language: eb.ref('excluded.language'),
            })),
          )
          .execute();
      }
    });
  }

  /** Records translations of one language: text, or an error code for translated-but-failed. */
  async setTranslations(taskId: string, language: string, entries: TranslationInput[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < entries.length; i += CHUNK) {
        const chunk = entries.slice(i, i + CHUNK);
        const rows = await trx
          .selectFrom('sentences')
          .select(['sid', 'translations', 'translation_errors'])
          .where('task_id', '=', taskId)
          .where(
            'sid',
            'in',
            chunk.map((e) => e.sid),
          )
          .execute();
        const bySid = new Map(rows.map((r) => [Number(r.sid), r]));
        for (const e of chunk) {
          const r = bySid.get(e.sid);
          if (!r) continue;
          const translations = parseJson<Record<string, string>>(r.translations, {});
          const errors = parseJson<Record<string, string>>(r.translation_errors, {});
          if (e.error !== undefined) {
            delete translations[language];
            errors[language] = e.error;
          } else {
            translations[language] = e.text ?? '';
            delete errors[language];
          }
          await trx
            .updateTable('sentences')
            .set({
              translations: Object.keys(translations).length ? JSON.stringify(translations) : null,
              translation_errors: Object.keys(errors).length ? JSON.stringify(errors) : null,
            })
            .where('task_id', '=', taskId)
            .where('sid', '=', e.sid)
            .execute();
        }
      }
    });
  }

  /** Saves a summary on the transcript (revision + 1) and its list fields on the task. */
  async setSummary(taskId: string, s: SummaryRecord): Promise<number> {
    return (await this.writeSummary(taskId, s, null)) as number;
  }

  /**
   * Saves a summary only if the transcript is still at `revision` (a regeneration read it
   * there): the new revision, or null when a speaker edit or another summary came first.
   */
  async setSummaryAt(taskId: string, s: SummaryRecord, revision: number): Promise<number | null> {
    return this.writeSummary(taskId, s, revision);
  }

  private async writeSummary(taskId: string, s: SummaryRecord, expected: number | null): Promise<number | null> {
    return this.db.transaction().execute(async (trx) => {
      await this.ensureTranscript(trx, taskId);
      const at = nowIso(this.now());
      const level = s.fallbackLevel ?? null;
      let update = trx
        .updateTable('transcripts')
        .set((eb) => ({
          summary: s.text,
          summary_language: s.language,
          summary_mode: s.mode,
          summary_template: s.template,
          summary_plain_text: flag(s.plainText),
          summary_prompt_snapshot: s.mode === 'custom' ? (s.promptSnapshot ?? null) : null,
          summary_fallback_level: level,
          summary_dropped_segments: level === 3 ? JSON.stringify(s.droppedSegments ?? []) : null,
          revision: eb('revision', '+', 1),
          updated_at: at,
        }))
        .where('task_id', '=', taskId);
      if (expected !== null) update = update.where('revision', '=', expected);
      const result = await update.executeTakeFirst();
      if (expected !== null && Number(result.numUpdatedRows) !== 1) return null;
      await trx
        .updateTable('tasks')
        .set({ summary_mode: s.mode, summary_template: s.template, summary_language: s.language, updated_at: at })
        .where('task_id', '=', taskId)
        .execute();
      const row = await trx.selectFrom('transcripts').select('revision').where('task_id', '=', taskId).executeTakeFirstOrThrow();
      return Number(row.revision);
    });
  }

  /** Drops sentences (and their corrections), summary and speaker labels (reprocessing rebuilds them). */
  async resetTranscript(taskId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('sentences').where('task_id', '=', taskId).execute();
      // Corrections (src/corrections) were of the sentences dropped here.
      await trx.deleteFrom('sentence_revisions').where('task_id', '=', taskId).execute();
      await trx.deleteFrom('transcripts').where('task_id', '=', taskId).execute();
      await trx
        .updateTable('tasks')
        .set({ summary_mode: null, summary_template: null, summary_language: null, updated_at: nowIso(this.now()) })
        .where('task_id', '=', taskId)
        .execute();
    });
  }

  async getTranscript(taskId: string): Promise<TranscriptRecord | null> {
    const r = await this.db.selectFrom('transcripts').selectAll().where('task_id', '=', taskId).executeTakeFirst();
    return r ? toTranscript(r) : null;
  }

  /** Sentences in sid order, a page at a time (long transcripts are streamed, not loaded whole). */
  async listSentences(taskId: string, afterSid: number | null = null, limit = 1000): Promise<SentenceRecord[]> {
    let q = this.db.selectFrom('sentences').selectAll().where('task_id', '=', taskId);
    // sid is a 32-bit integer column on PostgreSQL: no sentinel values out of its range.
    if (afterSid !== null) q = q.where('sid', '>', afterSid);
    const rows = await q.orderBy('sid').limit(limit).execute();
    return rows.map(toSentence);
  }

  async *allSentences(taskId: string, pageSize = 2000): AsyncGenerator<SentenceRecord[]> {
    let after: number | null = null;
    for (;;) {
      const page = await this.listSentences(taskId, after, pageSize);
      if (page.length === 0) return;
      yield page;
      after = page[page.length - 1]!.sid;
      if (page.length < pageSize) return;
    }
  }

  async countSentences(taskId: string): Promise<number> {
    const r = await this.db
      .selectFrom('sentences')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('task_id', '=', taskId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  // --- Speaker edits ----------------------------------------------------------------------

  /**
   * Distinct original speaker ids with their sentence sids, in order of first appearance;
   * then the kept speakers (no sentences left) with none.
   */
  async speakerSids(taskId: string, kept: readonly string[] = []): Promise<Map<string, number[]>> {
    const rows = await this.db.selectFrom('sentences').select(['sid', 'speaker_id']).where('task_id', '=', taskId).orderBy('sid').execute();
    const out = new Map<string, number[]>();
    for (const r of rows) {
      if (r.speaker_id === null) continue;
      const list = out.get(r.speaker_id) ?? [];
      list.push(Number(r.sid));
      out.set(r.speaker_id, list);
    }
    for (const id of kept) if (!out.has(id)) out.set(id, []);
    return out;
  }

  /** A live recording's speaker names and kept speakers, written when it is finalized. */
  async setSpeakers(taskId: string, labels: Record<string, string>, kept: readonly string[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.ensureTranscript(trx, taskId);
      await trx
        .updateTable('transcripts')
        .set({ speaker_labels: JSON.stringify(labels), kept_speakers: JSON.stringify(kept), updated_at: nowIso(this.now()) })
        .where('task_id', '=', taskId)
        .execute();
    });
  }

  async getSentence(taskId: string, sid: number): Promise<SentenceRecord | null> {
    const r = await this.db.selectFrom('sentences').selectAll().where('task_id', '=', taskId).where('sid', '=', sid).executeTakeFirst();
    return r ? toSentence(r) : null;
  }

  /**
   * Applies a speaker edit if the transcript is still at `revision` (optimistic check).
   * Returns the new revision, or null when another edit got there first.
   */
  async commitSpeakerEdit(
    taskId: string,
    revision: number,
    edit: { labels: Record<string, string>; kept: readonly string[]; move?: { fromSpeaker?: string; sids?: number[]; to: string } },
  ): Promise<number | null> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('transcripts')
        .set({
          revision: revision + 1,
          speaker_labels: JSON.stringify(edit.labels),
          kept_speakers: JSON.stringify(edit.kept),
          updated_at: nowIso(this.now()),
        })
        .where('task_id', '=', taskId)
        .where('revision', '=', revision)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return null;
      const move = edit.move;
      if (move?.fromSpeaker !== undefined) {
        await trx
          .updateTable('sentences')
          .set({ speaker_id: move.to })
          .where('task_id', '=', taskId)
          .where('speaker_id', '=', move.fromSpeaker)
          .execute();
      }
      if (move?.sids?.length) {
        await trx
          .updateTable('sentences')
          .set({ speaker_id: move.to })
          .where('task_id', '=', taskId)
          .where('sid', 'in', move.sids)
          .execute();
      }
      return revision + 1;
    });
  }

  protected async ensureTranscript(db: Db, taskId: string): Promise<void> {
    const at = nowIso(this.now());
    await db
      .insertInto('transcripts')
      .values({
        task_id: taskId,
        revision: 0,
        speaker_labels: '{}',
        kept_speakers: '[]',
        summary: null,
        summary_language: null,
        summary_mode: null,
        summary_template: null,
        summary_plain_text: null,
        summary_prompt_snapshot: null,
        summary_fallback_level: null,
        summary_dropped_segments: null,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) => oc.column('task_id').doNothing())
      .execute();
  }
}
