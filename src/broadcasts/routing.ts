/**
 * The broadcasts feature's answer to the webhook feature's `TaskRouting`: the outcome of a
 * broadcast's recording goes to the broadcast's callback_url when it has one (spec: it takes
 * precedence over the key's URL for this broadcast's webhooks), else to the key's URL. Read
 * inside the outcome's transaction.
 */
import type { Executor } from '../store/database.js';
import type { TaskRouting } from '../webhooks/task-outcomes.js';

export function broadcastTaskRouting(): TaskRouting {
  return async (taskId: string, within: Executor) => {
    const row = await within
      .selectFrom('broadcast_recordings')
      .innerJoin('broadcasts', 'broadcasts.id', 'broadcast_recordings.broadcast_id')
      .select('broadcasts.callback_url')
      .where('broadcast_recordings.task_id', '=', taskId)
      .executeTakeFirst();
    return row?.callback_url ? { callbackUrl: row.callback_url } : null;
  };
}

/** The first routing that knows the task decides. */
export function firstRouting(...routings: TaskRouting[]): TaskRouting {
  return async (taskId, within) => {
    for (const r of routings) {
      const route = await r(taskId, within);
      if (route) return route;
    }
    return null;
  };
}
