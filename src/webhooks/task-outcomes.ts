/**
 * A task's outcome as webhooks: `recording.completed` / `recording.failed`, written to the
 * outbox by the task service in the same transaction as the status change (see
 * `TaskOutcomeEffects`), so a notification exists exactly when the outcome commits; no bus
 * subscriber has to be alive for it.
 */
import type { Executor } from '../store/database.js';
import type { TaskOutcomeEffects } from '../tasks/service.js';
import type { TaskRecord } from '../tasks/store.js';
import { eventData } from './events.js';
import type { WebhookService } from './service.js';

/**
 * How a task's outcome is announced, read in the outcome's transaction. The imports feature
 * answers for imported tasks: while the import is pending or processing it announces the
 * outcome itself (recording.* then import.*, chained), so nothing is written here; later
 * outcomes of its task (retry, force-fail) go to the import's callback_url. null: the key's URL.
 */
export type TaskRouting = (
  taskId: string,
  within: Executor,
) => Promise<{ callbackUrl: string | null; announcedElsewhere?: boolean } | null>;

export function taskOutcomeWebhooks(webhooks: WebhookService, routing: TaskRouting): TaskOutcomeEffects {
  return {
    async completed(task: TaskRecord, within: Executor) {
      const route = await routing(task.taskId, within);
      if (route?.announcedElsewhere) return;
      await webhooks.notify(
        'recording.completed',
        {
          accountId: task.accountId,
          keyId: task.keyId,
          callbackUrl: route?.callbackUrl ?? null,
          data: eventData.recordingCompleted({
            task_id: task.taskId,
            name: task.title,
            duration_ms: task.durationMs,
            type_source: task.typeSource === 'import' ? 'import' : 'realtime',
            transcription_languages: task.transcriptionLanguages,
            translation_languages: task.translationLanguages,
          }),
          // One row per outcome: the task's updated_at names it (a retried task completes again later).
          dedupeKey: `recording.completed:${task.taskId}:${task.updatedAt}`,
        },
        within,
      );
    },
    async failed(task: TaskRecord, within: Executor) {
      const route = await routing(task.taskId, within);
      if (route?.announcedElsewhere) return;
      await webhooks.notify(
        'recording.failed',
        {
          accountId: task.accountId,
          keyId: task.keyId,
          callbackUrl: route?.callbackUrl ?? null,
          data: eventData.recordingFailed({ task_id: task.taskId, failure_source: task.failureSource }),
          dedupeKey: `recording.failed:${task.taskId}:${task.updatedAt}`,
        },
        within,
      );
    },
  };
}
