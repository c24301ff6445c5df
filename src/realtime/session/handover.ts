/**
 * A session leaves this process: a resume on another process asks for it (it is parked there,
 * its last audio and state stored). When another process took its recording over while this one
 * still ran it (this process stalled past its lease and the grace), the recording's `onLost`
 * hook lets it go (core.ts newRecording; the lifecycle's `taken_away`).
 */
import type { LiveSession } from './session.js';

/**
 * Parks the session's recording for the process that resumes it; the socket, if still open,
 * is closed with 4010. False: there was no running recording to hand over.
 */
export async function handOff(session: LiveSession, graceMs: number): Promise<boolean> {
  const rec = session.recording;
  const { logger } = session.deps;
  if (!rec || !session.running) return false;
  // The grace and the silence watch stop; the token is the resuming process's now. Events until
  // the recording is parked (the last final) reach the resuming client through the snapshot.
  session.handOverBegins();
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
    session.handOverEnds();
  }
}
