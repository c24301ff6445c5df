/**
 * This realtime process's part in the fleet's live recordings (tables.ts):
 * - its lease on the recordings it holds, renewed every third of the lease;
 * - `locate`: a resume whose recording this process does not hold finds it through the row
 *   (by the token's hash), asks the holder to hand it over (handover.ts) or, when the holder
 *   died, takes it over at once, and claims the row;
 * - the orphan sweep: a recording nobody will resume any more (parked past its grace, or its
 *   process dead for longer than the grace) is finished here from its segments and snapshot.
 * Every claim is a conditional UPDATE (store.ts), so one process acts on a recording.
 */
import type { Logger } from 'pino';
import type { EventBus } from '../../bus/types.js';
import type { Principal } from '../../platform/auth/types.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { ErrorCode } from '../../platform/errors/registry.js';
import { requestHandover } from './handover.js';
import { parseSnapshot, type RecordingSnapshot } from './snapshot.js';
import type { LiveRecordingStore, LiveRow } from './store.js';

export interface FleetDeps {
  store: LiveRecordingStore;
  bus: EventBus;
  instanceId: string;
  leaseMs: number;
  /** The resume grace (PARLEY_WS_DISCONNECT_GRACE_SECONDS). */
  graceMs: number;
  /**
   * How long a resume waits for the holder's answer (PARLEY_WS_HANDOVER_TIMEOUT_SECONDS): the
   * holder first finishes recognizing the audio it received, which lags on a loaded machine.
   */
  handoverTimeoutMs: number;
  logger: Logger;
  /** Finishes a claimed orphan (orphans.ts). */
  finishOrphan(row: LiveRow, snap: RecordingSnapshot): Promise<void>;
}

export type Located = { row: LiveRow; snap: RecordingSnapshot };

export class LiveFleet {
  constructor(private readonly d: FleetDeps) {}

  /** Starts the lease renewal and the orphan sweep; returns the stop function. */
  start(): () => void {
    let running = false;
    const tick = async () => {
      await this.d.store.renew(this.d.instanceId, this.d.leaseMs);
      await this.sweep();
    };
    const timer = setInterval(
      () => {
        if (running) return;
        running = true;
        tick()
          .catch((err: unknown) => this.d.logger.error({ err }, 'live recordings lease or sweep failed'))
          .finally(() => {
            running = false;
          });
      },
      Math.max(500, Math.floor(this.d.leaseMs / 3)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /** One pass of the orphan sweep: returns how many recordings this process finished. */
  async sweep(): Promise<number> {
    let finished = 0;
    for (const taskId of await this.d.store.orphans(this.d.graceMs)) {
      if (!(await this.d.store.claimForRecovery(taskId, this.d.instanceId, this.d.graceMs, this.d.leaseMs))) continue;
      const row = await this.d.store.get(taskId);
      if (!row) continue;
      try {
        this.d.logger.warn({ task_id: taskId, audio_ms: Math.round(row.bytes / 32) }, 'finishing a live recording nobody holds');
        await this.d.finishOrphan(row, parseSnapshot(row.snapshot));
        finished++;
      } catch (err) {
        // The row stays `recovering`: its lease lapses and a later sweep (here or elsewhere) tries again.
        this.d.logger.error({ err, task_id: taskId }, 'live recording not finished; tried again later');
      }
    }
    return finished;
  }

  /**
   * A resume of a recording this process does not hold: the row claimed for this process,
   * or the error the client is sent (resume_token_invalid, resume_ownership_mismatch,
   * resume_grace_expired, resume_unavailable).
   */
  async locate(token: string, principal: Principal): Promise<Located | AppError> {
    const row = await this.d.store.byToken(token);
    if (!row) return refuse('resume_token_invalid', 'No session with this resume token.', { reason: 'unknown' });
    if (row.key_id !== principal.keyId) return refuse('resume_ownership_mismatch', 'The session was started with another API key.', {});
    const ended = endedAnswer(row);
    if (ended) return ended;
    const now = Date.now();
    if (row.state === 'live' && Date.parse(row.lease_until) >= now) {
      if (row.instance_id === this.d.instanceId || !row.instance_id) {
        return refuse('resume_unavailable', 'The recording is ending.', { reason: 'recording_ending' });
      }
      const answer = await requestHandover(this.d.bus, row.instance_id, token, principal.keyId, this.d.handoverTimeoutMs);
      if (answer instanceof AppError) return answer;
      if (answer === 'no_answer') {
        const again = await this.d.store.get(row.task_id);
        if (again?.state === 'live' && Date.parse(again.lease_until) >= Date.now()) {
          return refuse('resume_unavailable', 'The process holding the session did not answer.', { reason: 'instance_unreachable' });
        }
      }
    }
    if (row.state === 'parked' && row.grace_until && Date.parse(row.grace_until) < now) {
      return refuse('resume_grace_expired', 'The resume grace period passed; the recording is finalized.', { reason: 'grace_expired' });
    }
    if (!(await this.d.store.claimForResume(row.task_id, this.d.instanceId, this.d.leaseMs))) {
      const again = await this.d.store.get(row.task_id);
      return (
        (again && endedAnswer(again)) ??
        refuse('resume_unavailable', 'The session was taken over by another connection.', { reason: 'taken' })
      );
    }
    const claimed = (await this.d.store.get(row.task_id)) as LiveRow;
    return { row: claimed, snap: parseSnapshot(claimed.snapshot) };
  }

  /** A claimed recording that could not be continued here: parked again for another try within the grace. */
  async giveBack(taskId: string): Promise<void> {
    await this.d.store.park(taskId, this.d.instanceId, this.d.graceMs).catch(() => false);
  }
}

function endedAnswer(row: LiveRow): AppError | null {
  if (row.state === 'ended') return refuse('resume_unavailable', 'The recording has ended.', { reason: 'recording_ended' });
  if (row.state === 'grace_expired' || row.state === 'recovering') {
    return refuse('resume_grace_expired', 'The resume grace period passed; the recording was finalized.', { reason: 'grace_expired' });
  }
  return null;
}

function refuse(code: ErrorCode, message: string, details: Record<string, unknown>): AppError {
  return new AppError(code, { variant: 'websocket', message, details: { action: 'start', ...details } });
}
