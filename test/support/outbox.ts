/** The webhook outbox as a receiver would get it: rows written for a task, oldest first (tests only). */
import type { ParleyApp } from '../../src/app.js';

export interface OutboxEntry {
  event: string;
  status: string;
  callback_url: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: tests read envelopes freely
  data: any;
}

export async function outboxFor(app: ParleyApp, taskId: string): Promise<OutboxEntry[]> {
  const rows = await app.deps.database.db
    .selectFrom('webhook_deliveries')
    .select(['event', 'status', 'callback_url', 'body', 'created_at'])
    .orderBy('created_at')
    .execute();
  return rows
    .map((r) => ({ event: r.event, status: r.status, callback_url: r.callback_url, data: JSON.parse(r.body).data }))
    .filter((r) => r.data?.task_id === taskId);
}
