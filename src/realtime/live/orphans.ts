/**
 * Finishing a recording nobody holds or will resume (fleet.ts sweep): the recording is rebuilt
 * here from its segments and snapshot, without recognition, and finalized like any other
 * (audio stored as M4A, the sentences of the snapshot, usage ended once, webhooks). Its
 * transcript holds the finals its process had when it stored its last segment.
 */
import type { TaskService } from '../../tasks/service.js';
import { Recording, type RecordingDeps } from '../recording.js';
import { segmentPrefix } from './segments.js';
import type { RecordingSnapshot } from './snapshot.js';
import type { LiveRow } from './store.js';

export function orphanFinisher(deps: Omit<RecordingDeps, 'emit' | 'error'>, tasks: Pick<TaskService, 'getTask'>) {
  return async (row: LiveRow, snap: RecordingSnapshot): Promise<void> => {
    const task = await tasks.getTask(row.task_id);
    if (task?.processingStatus !== 'recording') {
      // Finalized or force-failed meanwhile: only the row and segments are left to clear.
      await deps.live?.store.end(row.task_id, 'ended');
      await deps.blobs.deletePrefix(segmentPrefix(row.task_id));
      return;
    }
    const rec = new Recording(
      { ...deps, emit: () => {}, error: () => {} },
      { accountId: row.account_id, keyId: row.key_id },
      snap.start,
      snap.sessionId,
    );
    await rec.continueFrom(row, snap, false);
    // Its client did not come back within the grace: a late resume is told so.
    await rec.finish('normal', 'grace_expired');
  };
}
