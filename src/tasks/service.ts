/**
 * What a user does with tasks: list, pin, read, rename, delete (rows and blobs), force-fail
 * and retry. Ownership is checked on every call: another account's task answers exactly as
 * a task that does not exist. Two ports connect other features without importing them:
 * `TaskReprocessor` (imports re-run a failed task from its audio) and `ImportStatusPort`
 * (is the task's import still processing?).
 */
import type { Logger } from 'pino';
import { SESSION_FORCE_END_TOPIC, type SessionForceEndEvent } from '../bus/topics.js';
import type { EventBus } from '../bus/types.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { SummaryRequest } from '../processing/summarize.js';
import type { BlobStore } from '../storage/types.js';
import type { Database, Executor } from '../store/database.js';
import { TaskListRenderer } from './list-json.js';
import { taskNameProblem } from './name.js';
import { type FailureSource, IN_PROGRESS, type TaskStatus } from './status.js';
import type { CreateTaskInput, SentenceInput, TaskRecord, TaskStore, TranslationInput } from './store.js';

// Bus topics and their messages are declared in src/bus/topics.ts.
export type { SessionForceEndEvent } from '../bus/topics.js';
export { SESSION_FORCE_END_TOPIC } from '../bus/topics.js';

/**
 * Durable effects of a task's outcome (the webhook outbox rows and their delivery jobs),
 * written in the same transaction as the status change: they exist exactly when the outcome
 * commits, whatever process made it and whether or not any subscriber is listening.
 */
export interface TaskOutcomeEffects {
  completed(task: TaskRecord, within: Executor): Promise<void>;
  /** `task.failureSource` says why (`user_forced`, `no_audio`, `processing`). */
  failed(task: TaskRecord, within: Executor): Promise<void>;
}

/** Re-runs recognition (and what the task asked for) from the stored audio. */
export interface TaskReprocessor {
  /** Queues the work; the task is already `processing`. Throws if it cannot be queued. */
  /**
   * `summary`: a summary to make after the transcript (a recovered live recording's request),
   * charged under `summaryKey` (so one already charged before a crash is not charged again).
   */
  reprocess(task: TaskRecord, options?: { summary?: SummaryRequest | null; summaryKey?: string }): Promise<void>;
}

/** Answers whether the import that produced a task is still processing. */
export interface ImportStatusPort {
  isProcessing(importId: string): Promise<boolean>;
  /** The task was deleted: its import record goes too (nothing of a deleted task remains). */
  forget?(importId: string): Promise<void>;
}

export interface TaskServiceDeps {
  store: TaskStore;
  database: Database;
  blobs: BlobStore;
  bus: EventBus;
  logger?: Logger;
  reprocessor?: TaskReprocessor;
  imports?: ImportStatusPort;
  outcomeEffects?: TaskOutcomeEffects;
}

export type SkipReason = 'not_found' | 'invalid_processing_status';

export class TaskService {
  /** Queues a failed task's reprocessing (retry; recovered recordings). */
  readonly reprocessor: TaskReprocessor | undefined;
  private readonly imports: ImportStatusPort | undefined;
  private readonly outcomeEffects: TaskOutcomeEffects | undefined;

  private readonly listRenderer: TaskListRenderer;

  constructor(private readonly deps: TaskServiceDeps) {
    this.listRenderer = new TaskListRenderer(deps.database);
    this.reprocessor = deps.reprocessor;
    this.imports = deps.imports;
    this.outcomeEffects = deps.outcomeEffects;
  }

  get store(): TaskStore {
    return this.deps.store;
  }

  /** The caller's task, or 404 `recording_not_found` (unknown, foreign and malformed ids alike). */
  async owned(principal: Principal, taskId: string): Promise<TaskRecord> {
    const task = UUID.test(taskId) ? await this.deps.store.getOwnedTask(principal.accountId, taskId.toLowerCase()) : null;
    if (!task) throw new AppError('recording_not_found', { details: { task_id: taskId } });
    return task;
  }

  /** The list response body, built by the database and cached per account while current (see list-json.ts). */
  listBody(principal: Principal, statuses: readonly TaskStatus[] | null, ids: readonly string[] | null): Promise<Buffer> {
    return this.listRenderer.body(principal.accountId, statuses, ids);
  }

  list(principal: Principal, statuses: readonly TaskStatus[] | null, ids: readonly string[] | null): Promise<TaskRecord[]> {
    return this.deps.store.listTasks(principal.accountId, statuses, ids);
  }

  async setPinned(principal: Principal, taskId: string, pinned: boolean): Promise<boolean> {
    const task = await this.owned(principal, taskId);
    await this.deps.store.setPinned(principal.accountId, [task.taskId], pinned);
    return pinned;
  }

  async setPinnedMany(principal: Principal, ids: readonly string[], pinned: boolean): Promise<number> {
    return this.deps.store.setPinned(principal.accountId, [...new Set(ids.map((i) => i.toLowerCase()))], pinned);
  }

  async markRead(principal: Principal, taskId: string): Promise<void> {
    const task = await this.owned(principal, taskId);
    await this.deps.store.markRead(principal.accountId, task.taskId);
  }

  /** The user names the task (REST rename, a live session's set_name); the name rule applies. */
  async rename(principal: Principal, taskId: string, name: string): Promise<TaskRecord> {
    assertTaskName(name);
    const task = await this.owned(principal, taskId);
    await this.deps.store.rename(principal.accountId, task.taskId, name);
    return { ...task, title: name, nameSource: 'user' };
  }

  // --- Writers (live sessions): the task's record through the service, so its rules apply --

  /** A new task (a live session's recording); its name follows the name rule. */
  createTask(input: CreateTaskInput): Promise<TaskRecord> {
    assertTaskName(input.title);
    return this.deps.store.createTask(input);
  }

  getTask(taskId: string): Promise<TaskRecord | null> {
    return this.deps.store.getTask(taskId);
  }

  /** An in-progress move (recording -> uploading -> processing); outcomes go through complete/fail. */
  advance(taskId: string, to: 'uploading' | 'processing'): Promise<TaskRecord> {
    return this.deps.store.setStatus(taskId, to);
  }

  setAudio(taskId: string, audioKey: string, durationMs?: number): Promise<void> {
    return this.deps.store.setAudio(taskId, audioKey, durationMs);
  }

  appendSentences(taskId: string, sentences: SentenceInput[]): Promise<void> {
    return this.deps.store.appendSentences(taskId, sentences);
  }

  /** A live recording's speaker names and kept speakers (speaker edits made while it ran). */
  setSpeakers(taskId: string, labels: Record<string, string>, kept: readonly string[]): Promise<void> {
    return this.deps.store.setSpeakers(taskId, labels, kept);
  }

  setTranslations(taskId: string, language: string, entries: TranslationInput[]): Promise<void> {
    return this.deps.store.setTranslations(taskId, language, entries);
  }

  /** Why a task may not be deleted or force-failed right now, or null. */
  private async importBusy(task: TaskRecord): Promise<boolean> {
    return task.importId !== null && this.imports !== undefined && (await this.imports.isProcessing(task.importId));
  }

  async delete(principal: Principal, taskId: string): Promise<void> {
    const task = await this.owned(principal, taskId);
    const refusal = await this.deleteRefusal(task);
    if (refusal) throw refusal;
    await this.remove(task);
  }

  /** Deletes each own task it can; reports the others with a reason, in request order. */
  async deleteMany(
    principal: Principal,
    ids: readonly string[],
  ): Promise<{ deleted_count: number; skipped: { task_id: string; reason: SkipReason }[] }> {
    let deleted = 0;
    const skipped: { task_id: string; reason: SkipReason }[] = [];
    for (const id of [...new Set(ids.map((i) => i.toLowerCase()))]) {
      const task = await this.deps.store.getOwnedTask(principal.accountId, id);
      if (!task) {
        skipped.push({ task_id: id, reason: 'not_found' });
        continue;
      }
      if (await this.deleteRefusal(task)) {
        skipped.push({ task_id: id, reason: 'invalid_processing_status' });
        continue;
      }
      if (await this.remove(task)) deleted++;
      else skipped.push({ task_id: id, reason: 'invalid_processing_status' });
    }
    return { deleted_count: deleted, skipped };
  }

  private async deleteRefusal(task: TaskRecord): Promise<AppError | null> {
    if (IN_PROGRESS.includes(task.processingStatus)) {
      return new AppError('invalid_processing_status', {
        message: `A ${task.processingStatus} task cannot be deleted; wait until it completes or fails (or force-fail it).`,
        details: { processing_status: task.processingStatus },
      });
    }
    if (await this.importBusy(task)) {
      return new AppError('invalid_processing_status', {
        message: 'The import of this task is still processing.',
        details: { processing_status: task.processingStatus, import_id: task.importId },
      });
    }
    return null;
  }

  /**
   * Rows first (in the state we checked, so a task that just moved is left alone), then its
   * blobs: a crash in between leaves unreferenced files, never a task without its audio.
   */
  private async remove(task: TaskRecord): Promise<boolean> {
    if (!(await this.deps.store.deleteTaskRows(task.taskId, task.processingStatus))) return false;
    if (task.importId) await this.imports?.forget?.(task.importId);
    const keys = [task.audioKey, task.sourceKey].filter((k): k is string => k !== null);
    for (const key of keys) await this.deps.blobs.delete(key);
    await this.deps.blobs.deletePrefix(`tasks/${task.taskId}/`);
    return true;
  }

  /**
   * Marks a stuck task failed (`user_forced`). A connected live session is told to end first,
   * so its client gets the error and its recording stops; then the status moves, with
   * `recording.failed` in the webhook outbox in the same transaction.
   */
  async forceFail(principal: Principal, taskId: string): Promise<TaskRecord> {
    const task = await this.owned(principal, taskId);
    if (!IN_PROGRESS.includes(task.processingStatus)) {
      throw new AppError('invalid_processing_status', {
        message: `Only a task that is recording, importing, uploading, pending or processing can be force-failed; this one is ${task.processingStatus}.`,
        details: { processing_status: task.processingStatus },
      });
    }
    if (await this.importBusy(task)) {
      throw new AppError('invalid_processing_status', {
        message: 'The import of this task is still processing; it cannot be force-failed.',
        details: { processing_status: task.processingStatus, import_id: task.importId },
      });
    }
    if (task.processingStatus === 'recording') {
      await this.deps.bus.publish(SESSION_FORCE_END_TOPIC, { task_id: task.taskId, reason: 'user_forced' } satisfies SessionForceEndEvent);
    }
    return this.fail(task.taskId, { source: 'user_forced', code: 'user_forced', message: 'Marked failed by the user.' });
  }

  // --- Outcomes for writers (live sessions, imports, reprocessing) -------------------------

  /**
   * Ends processing successfully: `processing` -> `completed`, and in the same transaction
   * its durable effects (`recording.completed` in the webhook outbox). `within`: a caller's
   * open transaction to join (an import completes its own record in it too).
   */
  async complete(taskId: string, change: { durationMs?: number } = {}, within?: Executor): Promise<TaskRecord> {
    return this.inTransaction(within, async (tx) => {
      const done = await this.deps.store.setStatus(taskId, 'completed', change, tx);
      await this.outcomeEffects?.completed(done, tx);
      return done;
    });
  }

  /** Fails a task from any in-progress state, with its durable effects (`recording.failed`) in the same transaction. */
  async fail(taskId: string, failure: { source: FailureSource; code?: string; message?: string }, within?: Executor): Promise<TaskRecord> {
    return this.inTransaction(within, async (tx) => {
      const failed = await this.deps.store.setStatus(taskId, 'failed', { failure }, tx);
      await this.outcomeEffects?.failed(failed, tx);
      return failed;
    });
  }

  private inTransaction<T>(within: Executor | undefined, fn: (tx: Executor) => Promise<T>): Promise<T> {
    return within ? fn(within) : this.deps.database.db.transaction().execute(fn);
  }

  /** Moves a failed task with stored audio back to `processing` and queues its reprocessing. */
  async retry(principal: Principal, taskId: string): Promise<TaskRecord> {
    const task = await this.owned(principal, taskId);
    if (task.processingStatus !== 'failed') {
      throw new AppError('invalid_processing_status', {
        message: `Only a failed task can be retried; this one is ${task.processingStatus}.`,
        details: { processing_status: task.processingStatus },
      });
    }
    const audio = task.audioKey ? await this.deps.blobs.stat(task.audioKey) : null;
    if (!audio) {
      throw new AppError('invalid_processing_status', {
        message: 'This task has no stored audio to reprocess.',
        details: { processing_status: task.processingStatus, reason: 'no_audio' },
      });
    }
    if (!this.reprocessor) {
      throw new AppError('invalid_processing_status', {
        message: 'Reprocessing is not available on this deployment.',
        details: { processing_status: task.processingStatus, reason: 'reprocessing_unavailable' },
      });
    }
    const moved = await this.deps.store.setStatus(task.taskId, 'processing');
    try {
      await this.reprocessor.reprocess(moved);
    } catch (err) {
      // Not queued: put the task back so the user can retry again.
      this.deps.logger?.error({ err, task_id: task.taskId }, 'queueing reprocessing failed');
      await this.deps.store.setStatus(task.taskId, 'failed', {
        failure: {
          source: (task.failureSource ?? 'processing') as FailureSource,
          code: task.failureCode ?? undefined,
          message: task.failureMessage ?? undefined,
        },
      });
      throw new AppError('internal_error', { message: 'The task could not be queued for reprocessing; retry later.', cause: err });
    }
    return moved;
  }
}

function assertTaskName(name: string): void {
  const problem = taskNameProblem(name);
  if (problem) throw new AppError('validation_failed', { message: `name ${problem}.`, details: { field: 'name' } });
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
