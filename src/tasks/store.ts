/**
 * The task store: every read and write of tasks, transcripts and sentences. Live sessions
 * and imports create and fill tasks through the writer operations (createTask,
 * appendSentences, setTranslations, setSummary, setStatus, setAudio); the task routes use
 * the rest. Status moves go through the transition table (status.ts) with a conditional
 * UPDATE, so two writers can never both move the same task. The transcript operations are
 * in transcript-store.ts (this class extends it), the records in records.ts.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../platform/errors/app-error.js';
import { flag, nowIso, parseJson } from '../store/columns.js';
import type { Executor } from '../store/database.js';
import { CHUNK, type CreateTaskInput, json, type StatusChange, type TaskRecord, toTask } from './records.js';
import { canTransition, type TaskStatus } from './status.js';
import type { TasksTable } from './tables.js';
import { TranscriptStore } from './transcript-store.js';

export type {
  CreateTaskInput,
  SentenceInput,
  SentenceRecord,
  StatusChange,
  SummaryRecord,
  TaskRecord,
  TranscriptRecord,
  TranslationInput,
} from './records.js';

export class TaskStore extends TranscriptStore {
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
}
