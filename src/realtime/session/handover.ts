/**
 * A session leaves this process: a resume on another process asks for it (it is parked there,
 * its last audio and state stored), or another process took its recording over while this one
 * still ran it (this process stalled past its lease and the grace).
 */
import type { Recording } from '../recording.js';
import { collectGap, type LiveSession } from './session.js';

/**
 * Parks the session's recording for the process that resumes it; the socket, if still open,
 * is closed with 4010. False: there was no running recording to hand over.
 */
export async function handOff(session: LiveSession, graceMs: number): Promise<boolean> {
  const rec = session.recording;
  const { logger } = session.deps;
  if (!rec || !session.running) return false;
  const owner = session.ownerState();
  // The grace and the silence watch stop; the token is the resuming process's now.
  session.drive({ kind: 'hand_over' });
  // Events until the recording is parked (the last final) reach the resuming client through the snapshot.
  const gap = [...owner.gap];
  session.detach();
  session.detach = () => {};
  session.gapOff();
  session.gapOff = collectGap(rec, gap);
  rec.owner = () => ({ ...owner, gap });
  const began = Date.now();
  let parked = false;
  try {
    parked = await rec.park(graceMs);
    return parked;
  } catch (err) {
    logger.error({ err, task_id: rec.taskId }, 'hand-over failed');
    return false;
  } finally {
    logger.info({ task_id: rec.taskId, ms: Date.now() - began, parked }, 'recording hand-over');
    // Not handed over: it ends here, as after a stop (its recognizer already ended).
    if (!parked) await rec.finish('normal').catch((err) => logger.error({ err, task_id: rec.taskId }, 'finalization failed'));
    session.gapOff();
    session.forgetRecording();
    session.drive({ kind: 'handed_over' });
  }
}

/**
 * The recording was taken over by another process: nothing more is recorded or finalized
 * here, and the client, whose session now lives elsewhere, is closed with 4010 (it may resume there).
 */
export function letGo(session: LiveSession, rec: Recording): void {
  if (session.recording === rec) session.drive({ kind: 'taken_away' });
}
