/**
 * The task store: every read and write of tasks, transcripts and sentences. Live sessions
 * and imports create and fill tasks through the writer operations (createTask,
 * appendSentences, setTranslations, setSummary, setStatus, setAudio); the task routes use
 * the rest. Status moves go through the transition table (status.ts) with a conditional
 * UPDATE, so two writers can never both move the same task.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../platform/errors/app-error.js';
import { flag, nowIso, parseJson } from '../store/columns.js';
import type { Database, Executor } from '../store/database.js';
import type { Schema } from '../store/schema.js';
import { canTransition, type FailureSource, type RecognitionMode, type TaskStatus, type TaskType, type TypeSource } from './status.js';
import type { SentencesTable, TasksTable, TranscriptsTable } from './tables.js';

export interface TaskRecord {
  taskId: string;
  accountId: string;
  keyId: string;
  title: string;
  nameSource: 'auto' | 'user';
  type: TaskType;
  typeSource: TypeSource;
  recognitionMode: RecognitionMode;
  durationMs: number;
  transcriptionLanguages: string[] | null;
  translationLanguages: string[] | null;
  processingStatus: TaskStatus;
  isPinned: boolean;
  isUnread: boolean;
  summaryMode: string | null;
  summaryTemplate: string | null;
  summaryLanguage: string | null;
  audioKey: string | null;
  sourceKey: string | null;
  importId: string | null;
  failureSource: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface SentenceRecord {
  sid: number;
  origin: string;
  startMs: number;
  endMs: number;
  speakerId: string | null;
  language: string | null;
  translations: Record<string, string> | null;
  translationErrors: Record<string, string> | null;
}

export interface SummaryRecord {
  text: string;
  language: string | null;
  mode: 'builtin' | 'custom';
  template: string | null;
  plainText: boolean;
  promptSnapshot?: string | null;
  fallbackLevel?: 2 | 3 | null;
  droppedSegments?: number[] | null;
}

export interface TranscriptRecord {
  taskId: string;
  revision: number;
  speakerLabels: Record<string, string>;
  /** Speakers without sentences that still exist (their last sentence was reassigned away). */
  keptSpeakers: string[];
  summary: SummaryRecord | null;
}

export interface CreateTaskInput {
  taskId?: string;
  accountId: string;
  keyId: string;
  title: string;
  /** `user` when the caller named the task at start; default `auto`. */
  nameSource?: 'auto' | 'user';
  type: TaskType;
  typeSource: TypeSource;
  recognitionMode: RecognitionMode;
  processingStatus: Extract<TaskStatus, 'recording' | 'importing' | 'uploading' | 'processing'>;
  transcriptionLanguages?: string[] | null;
  translationLanguages?: string[] | null;
  durationMs?: number;
  importId?: string | null;
  sourceKey?: string | null;
  createdAt?: Date;
}

export interface SentenceInput {
  sid: number;
  origin: string;
  startMs: number;
  endMs: number;
  speakerId?: string | null;
  language?: string | null;
}

export interface TranslationInput {
  sid: number;
  /** The translated text; or `error` with a spec error code when translation failed. */
  text?: string;
  error?: string;
}

export interface StatusChange {
  failure?: { source: FailureSource; code?: string; message?: string };
  durationMs?: number;
}

type Db = Kysely<Schema> | Transaction<Schema>;

function toTask(r: TasksTable): TaskRecord {
  return {
    taskId: r.task_id,
    accountId: r.account_id,
    keyId: r.key_id,
    title: r.title,
    nameSource: r.name_source as 'auto' | 'user',
    type: r.type as TaskType,
    typeSource: r.type_source as TypeSource,
    recognitionMode: r.recognition_mode as RecognitionMode,
    durationMs: Number(r.duration_ms),
    transcriptionLanguages: parseJson<string[] | null>(r.transcription_languages, null),
    translationLanguages: parseJson<string[] | null>(r.translation_languages, null),
    processingStatus: r.processing_status as TaskStatus,
    isPinned: Number(r.is_pinned) === 1,
    isUnread: Number(r.is_unread) === 1,
    summaryMode: r.summary_mode,
    summaryTemplate: r.summary_template,
    summaryLanguage: r.summary_language,
    audioKey: r.audio_key,
    sourceKey: r.source_key,
    importId: r.import_id,
    failureSource: r.failure_source,
    failureCode: r.failure_code,
    failureMessage: r.failure_message,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toSentence(r: SentencesTable): SentenceRecord {
  return {
    sid: Number(r.sid),
    origin: r.origin,
    startMs: Number(r.start_ms),
    endMs: Number(r.end_ms),
    speakerId: r.speaker_id,
    language: r.language,
    translations: parseJson<Record<string, string> | null>(r.translations, null),
    translationErrors: parseJson<Record<string, string> | null>(r.translation_errors, null),
  };
}

function toTranscript(r: TranscriptsTable): TranscriptRecord {
  const summary: SummaryRecord | null =
    r.summary === null || r.summary_mode === null
      ? null
      : {
          text: r.summary,
          language: r.summary_language,
          mode: r.summary_mode as 'builtin' | 'custom',
          template: r.summary_template,
          plainText: Number(r.summary_plain_text) === 1,
          promptSnapshot: r.summary_prompt_snapshot,
          fallbackLevel: (r.summary_fallback_level ?? null) as 2 | 3 | null,
          droppedSegments: parseJson<number[] | null>(r.summary_dropped_segments, null),
        };
  return {
    taskId: r.task_id,
    revision: Number(r.revision),
    speakerLabels: parseJson<Record<string, string>>(r.speaker_labels, {}),
    keptSpeakers: parseJson<string[]>(r.kept_speakers, []),
    summary,
  };
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** Largest IN list sent in one statement (SQLite's variable limit is far above this). */
const CHUNK = 500;

export class TaskStore {
  constructor(
    private readonly database: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get db(): Kysely<Schema> {
    return this.database.db;
  }

  // --- Writers (live sessions, imports) -------------------------------------------------

  async createTask(input: CreateTaskInput): Promise<TaskRecord> {
    const at = nowIso(input.createdAt ?? this.now());
    const row: TasksTable = {
      task_id: input.taskId ?? randomUUID(),
      account_id: input.accountId,
      key_id: input.keyId,
      title: input.title,
      name_source: input.nameSource ?? 'auto',
      type: input.type,
      type_source: input.typeSource,
      recognition_mode: input.recognitionMode,
      duration_ms: input.durationMs ?? 0,
      transcription_languages: json(input.transcriptionLanguages?.length ? input.transcriptionLanguages : null),
      translation_languages: json(input.translationLanguages?.length ? input.translationLanguages : null),
      processing_status: input.processingStatus,
      is_pinned: 0,
      is_unread: 1,
      summary_mode: null,
      summary_template: null,
      summary_language: null,
      audio_key: null,
      source_key: input.sourceKey ?? null,
      import_id: input.importId ?? null,
      failure_source: null,
      failure_code: null,
      failure_message: null,
      created_at: at,
      updated_at: at,
    };
    await this.db.insertInto('tasks').values(row).execute();
    return toTask(row);
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

  /**
   * Lists `language` among the task's translation languages (a retranslation into a language
   * the task did not have), so history and exports show it. Conditional on the list read, so
   * two concurrent additions cannot drop one another (the loser re-reads and retries).
   */
  async addTranslationLanguage(taskId: string, language: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await this.db.selectFrom('tasks').select('translation_languages').where('task_id', '=', taskId).executeTakeFirst();
      if (!row) return;
      const list = parseJson<string[] | null>(row.translation_languages, null) ?? [];
      if (list.includes(language)) return;
      let q = this.db
        .updateTable('tasks')
        .set({ translation_languages: json([...list, language]), updated_at: nowIso(this.now()) })
        .where('task_id', '=', taskId);
      q =
        row.translation_languages === null
          ? q.where('translation_languages', 'is', null)
          : q.where('translation_languages', '=', row.translation_languages);
      if (Number((await q.executeTakeFirst()).numUpdatedRows) === 1) return;
    }
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

  /**
   * Moves a task to `to` if the transition table allows it from its current state; throws
   * `invalid_processing_status` otherwise (also when another writer moved it first).
   */
  async setStatus(taskId: string, to: TaskStatus, change: StatusChange = {}, within: Executor = this.db): Promise<TaskRecord> {
    const current = await this.getTask(taskId, within);
    if (!current) throw new AppError('recording_not_found');
    if (!canTransition(current.processingStatus, to)) {
      throw new AppError('invalid_processing_status', {
        message: `A ${current.processingStatus} task cannot become ${to}.`,
        details: { processing_status: current.processingStatus, requested: to },
      });
    }
    const failure = to === 'failed' ? change.failure : undefined;
    const result = await within
      .updateTable('tasks')
      .set({
        processing_status: to,
        updated_at: nowIso(this.now()),
        failure_source: failure?.source ?? null,
        failure_code: failure?.code ?? null,
        failure_message: failure?.message ?? null,
        ...(change.durationMs !== undefined ? { duration_ms: Math.round(change.durationMs) } : {}),
      })
      .where('task_id', '=', taskId)
      // Still in the state checked above: a concurrent writer that moved it first wins.
      .where('processing_status', '=', current.processingStatus)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      throw new AppError('invalid_processing_status', {
        message: 'The task changed state concurrently.',
        details: { requested: to },
      });
    }
    return (await this.getTask(taskId, within)) as TaskRecord;
  }

  /** Records the playable audio (M4A blob key) and, when known, the duration. */
  async setAudio(taskId: string, audioKey: string, durationMs?: number): Promise<void> {
    await this.db
      .updateTable('tasks')
      .set({
        audio_key: audioKey,
        updated_at: nowIso(this.now()),
        ...(durationMs !== undefined ? { duration_ms: Math.round(durationMs) } : {}),
      })
      .where('task_id', '=', taskId)
      .execute();
  }

  async setSource(taskId: string, sourceKey: string | null): Promise<void> {
    await this.db
      .updateTable('tasks')
      .set({ source_key: sourceKey, updated_at: nowIso(this.now()) })
      .where('task_id', '=', taskId)
      .execute();
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

  // --- Reads ------------------------------------------------------------------------------

  async getTask(taskId: string, within: Executor = this.db): Promise<TaskRecord | null> {
    const r = await within.selectFrom('tasks').selectAll().where('task_id', '=', taskId).executeTakeFirst();
    return r ? toTask(r) : null;
  }

  /** The task if `accountId` owns it; other accounts' tasks do not exist for the caller. */
  async getOwnedTask(accountId: string, taskId: string): Promise<TaskRecord | null> {
    const r = await this.db
      .selectFrom('tasks')
      .selectAll()
      .where('task_id', '=', taskId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return r ? toTask(r) : null;
  }

  /** Pinned first, then newest. `statuses` null = every state; `ids` null = no id filter. */
  async listTasks(accountId: string, statuses: readonly TaskStatus[] | null, ids: readonly string[] | null): Promise<TaskRecord[]> {
    if (ids && ids.length === 0) return [];
    let q = this.db.selectFrom('tasks').selectAll().where('account_id', '=', accountId);
    if (statuses)
      q = statuses.length === 1 ? q.where('processing_status', '=', statuses[0]!) : q.where('processing_status', 'in', statuses);
    if (ids) q = q.where('task_id', 'in', ids);
    const rows = await q.orderBy('is_pinned', 'desc').orderBy('created_at', 'desc').orderBy('task_id', 'desc').execute();
    return rows.map(toTask);
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

  // --- User edits (task routes) --------------------------------------------------------

  /** Sets the pin flag on the caller's tasks among `ids`; returns how many rows changed. */
  async setPinned(accountId: string, ids: readonly string[], pinned: boolean): Promise<number> {
    let n = 0;
    for (let i = 0; i < ids.length; i += CHUNK) {
      const r = await this.db
        .updateTable('tasks')
        .set({ is_pinned: flag(pinned), updated_at: nowIso(this.now()) })
        .where('account_id', '=', accountId)
        .where('task_id', 'in', ids.slice(i, i + CHUNK))
        .where('is_pinned', '=', flag(!pinned))
        .executeTakeFirst();
      n += Number(r.numUpdatedRows);
    }
    return n;
  }

  async markRead(accountId: string, taskId: string): Promise<boolean> {
    const r = await this.db
      .updateTable('tasks')
      .set({ is_unread: 0 })
      .where('account_id', '=', accountId)
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async rename(accountId: string, taskId: string, title: string): Promise<boolean> {
    const r = await this.db
      .updateTable('tasks')
      .set({ title, name_source: 'user', updated_at: nowIso(this.now()) })
      .where('account_id', '=', accountId)
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Deletes the rows of a task that is still in `expectedStatus` (a task that moved in the
   * meantime is left alone). Returns false when nothing was deleted.
   */
  async deleteTaskRows(taskId: string, expectedStatus: TaskStatus): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const owner = await trx
        .selectFrom('tasks')
        .select('task_id')
        .where('task_id', '=', taskId)
        .where('processing_status', '=', expectedStatus)
        .executeTakeFirst();
      if (!owner) return false;
      await trx.deleteFrom('sentences').where('task_id', '=', taskId).execute();
      await trx.deleteFrom('transcripts').where('task_id', '=', taskId).execute();
      await trx.deleteFrom('tasks').where('task_id', '=', taskId).execute();
      return true;
    });
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

  private async ensureTranscript(db: Db, taskId: string): Promise<void> {
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
