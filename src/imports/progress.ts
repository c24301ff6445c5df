/**
 * Import progress on the bus (topic per import), for the progress SSE stream and any process
 * that serves it: the worker publishes, the API role's stream forwards. Events (documented in
 * docs/imports.md): `progress` {import_id, status, stage, progress, message, and while pending
 * the extension queue_position}, then exactly one
 * of `completed` {import_id, task_id, status, progress} or `failed` {import_id, status,
 * error_code, error_message}.
 */
import type { ProgressData, ProgressEvent } from '../bus/topics.js';
import type { ImportRecord } from './store.js';

export type { ProgressEvent } from '../bus/topics.js';
export { progressTopic } from '../bus/topics.js';

export function progressData(i: Pick<ImportRecord, 'importId' | 'status' | 'stage' | 'progress' | 'message'>): ProgressData {
  return { import_id: i.importId, status: i.status, stage: i.stage, progress: i.progress, message: i.message };
}

/**
 * The event that describes an import's current state (final states give their closing event);
 * a pending import's carries its `queue_position` when known.
 */
export function snapshotEvent(i: ImportRecord, queuePosition?: number): ProgressEvent {
  if (i.status === 'completed')
    return { event: 'completed', data: { import_id: i.importId, status: 'completed', progress: 100, task_id: i.taskId } };
  if (i.status === 'failed') {
    return {
      event: 'failed',
      data: { import_id: i.importId, status: 'failed', error_code: i.errorCode ?? 'internal_error', error_message: i.errorMessage ?? '' },
    };
  }
  const data = progressData(i);
  return {
    event: 'progress',
    data: i.status === 'pending' && queuePosition !== undefined ? { ...data, queue_position: queuePosition } : data,
  };
}
