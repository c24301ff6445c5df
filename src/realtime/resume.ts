/**
 * Session resume (spec: `resume_ok`, `resume_token_invalid`, `resume_grace_expired`,
 * `resume_ownership_mismatch`, `resume_unavailable`). `session_started` carries a resume token;
 * after the connection dropped, a new connection (new ticket) sends `start` with
 * `resume_token` and takes the running recording over: the recognizer, the audio on disk and the
 * billing never stopped, so nothing recorded is lost across the gap (docs/live-modes.md).
 *
 * A token is `<instance id>.<secret>`. A token this process does not know goes to the fleet
 * (src/realtime/live): the recording is taken over from the process that holds it, or from
 * the blob store and database when that process died. Without the fleet (tests that wire
 * none), a token naming another instance is `resume_unavailable`. Tokens of recordings that
 * ended here are remembered for a while, so that a late resume gets `resume_grace_expired`
 * rather than "invalid" (the fleet's rows say the same on other processes).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ErrorCode } from '../platform/errors/registry.js';

/** Why a recording can no longer be resumed. */
export type EndedReason = 'grace_expired' | 'ended';

/** What a resuming connection needs to know of a live recording's owner. */
export interface Resumable {
  readonly resumeToken: string | null;
  readonly owner: Principal;
  /** null when the recording can be taken over now, else why not. */
  resumeRefusal(): string | null;
}

const TOKEN = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{32})$/;
/** Ended tokens remembered (answers resume_grace_expired), at most this many for this long. */
const ENDED_MAX = 10_000;
const ENDED_TTL_MS = 60 * 60 * 1000;

export class ResumeDirectory {
  private readonly ended = new Map<string, { reason: EndedReason; at: number }>();

  constructor(
    /** The live recordings of this process (the server's connections). */
    private readonly live: () => Iterable<Resumable>,
    private readonly nowMs: () => number = Date.now,
    /** This process (src/realtime/live names the holder of a recording by it). */
    readonly instanceId: string = randomUUID(),
  ) {}

  issue(): string {
    return `${this.instanceId}.${randomBytes(24).toString('base64url')}`;
  }

  /** The recording of `token` stopped: later resumes are told why. */
  forget(token: string, reason: EndedReason): void {
    this.ended.delete(token);
    this.ended.set(token, { reason, at: this.nowMs() });
    for (const [t, e] of this.ended) {
      if (this.ended.size <= ENDED_MAX && this.nowMs() - e.at < ENDED_TTL_MS) break;
      this.ended.delete(t);
    }
  }

  /** A token of the right shape (of any process). */
  wellFormed(token: string): boolean {
    return TOKEN.test(token);
  }

  /** A recording of this process answers to `token` now, or did until it ended here. */
  knows(token: string): boolean {
    return this.ended.has(token) || [...this.live()].some((r) => r.resumeToken === token);
  }

  /** The live recording `token` names and `principal` may take over, or the error the client is sent. */
  find<T extends Resumable>(token: unknown, principal: Principal): T | AppError {
    const parsed = typeof token === 'string' ? TOKEN.exec(token) : null;
    if (!parsed) return refuse('resume_token_invalid', 'The resume token is malformed.', { reason: 'malformed' });
    if (parsed[1] !== this.instanceId) {
      return refuse('resume_unavailable', 'The session runs on another instance; connect to the same instance to resume it.', {
        reason: 'other_instance',
      });
    }
    const target = [...this.live()].find((r) => r.resumeToken === token) as T | undefined;
    if (!target) {
      const ended = this.ended.get(token as string);
      if (ended && this.nowMs() - ended.at < ENDED_TTL_MS) {
        return ended.reason === 'grace_expired'
          ? refuse('resume_grace_expired', 'The resume grace period passed; the recording was finalized.', { reason: 'grace_expired' })
          : refuse('resume_unavailable', 'The recording has ended.', { reason: 'recording_ended' });
      }
      return refuse('resume_token_invalid', 'No session with this resume token.', { reason: 'unknown' });
    }
    if (target.owner.keyId !== principal.keyId) {
      return refuse('resume_ownership_mismatch', 'The session was started with another API key.', {});
    }
    const why = target.resumeRefusal();
    if (why) return refuse('resume_unavailable', `The session cannot be resumed (${why}).`, { reason: why });
    return target;
  }
}

function refuse(code: ErrorCode, message: string, details: Record<string, unknown>): AppError {
  return new AppError(code, { variant: 'websocket', message, details: { action: 'start', ...details } });
}
