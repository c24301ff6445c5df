/**
 * The imports feature's answer to "how is this task's outcome announced" (the webhook
 * feature's `TaskRouting`), read inside the outcome's transaction: an import announces its
 * own outcome (recording.* then import.*) while it is pending or processing; after that,
 * outcomes of its task (retry, force-fail) go to the import's callback_url.
 */
import type { Executor } from '../store/database.js';
import type { TaskRouting } from '../webhooks/task-outcomes.js';
import type { ImportStore } from './store.js';

export function importTaskRouting(store: ImportStore): TaskRouting {
  return async (taskId: string, within: Executor) => {
    const imp = await store.byTask(taskId, within);
    if (!imp) return null;
    return { callbackUrl: imp.callbackUrl, announcedElsewhere: imp.status === 'pending' || imp.status === 'processing' };
  };
}
