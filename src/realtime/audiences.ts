/**
 * The port through which a live session knows the audiences its own `start` opens (a
 * broadcast): src/realtime never imports them; src/composition/realtime.ts wires the feature.
 */
import type { Principal } from '../platform/auth/types.js';
import type { AppError } from '../platform/errors/app-error.js';
import type { SessionEvent } from '../stream/events.js';

/**
 * Audiences that the owner's own `start` opens (a broadcast), known here only through this port
 * (src/app.ts wires the broadcasts feature). One subscribes to the session stream itself; the
 * host's connection hands it the host's actions and the moments only the connection sees.
 */
export interface HostedAudiences {
  /** Checks a `start` for the audience: its fields, the plan, the token; ok gives the recording's start fields. */
  prepare(principal: Principal, data: Record<string, unknown>): Promise<PreparedAudience>;
}

export type PreparedAudience = { ok: true; host: HostedAudience; startData: Record<string, unknown> } | { ok: false; error: AppError };

/** What a hosted audience sees of the live session: its stream on this node and its translator. */
export interface AudienceSession {
  taskId: string;
  /** Listens to the session stream on this node from the next event on; returns the detach function. */
  subscribe(listener: (event: SessionEvent) => void): () => void;
  /** Text into another language through the session's translator and glossary (as its finals). */
  translate(text: string, from: string, to: string): Promise<string>;
  /** Milliseconds of audio recorded so far: the session's timeline, on which its results' times lie. */
  recordedMs(): number;
}

export interface HostedAudience {
  /** Takes the audience for this host before the recording starts (throws the spec's refusal). */
  claim(): Promise<void>;
  /** The recording could not begin after the claim. */
  release(): Promise<void>;
  /**
   * The recording runs: the audience subscribes to its stream. `revoked` and `lost` end the
   * host's recording (the token was revoked; another host took the audience). Returns the
   * detach function of the subscription (the host's socket closed, or the recording ended).
   */
  attach(session: AudienceSession, revoked: () => void, lost: (error: AppError) => void): Promise<() => void>;
  /** What `session_started` adds. */
  startedFields(): Promise<Record<string, unknown>>;
  /** The host's audience actions, each answered with its event's payload. */
  goLive(): Promise<Record<string, unknown>>;
  announce(data: Record<string, unknown>): Promise<Record<string, unknown>>;
  setStandbyMessage(data: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** pause, resume and stop of the host (after the recording's state machine accepted them). */
  control(action: 'pause' | 'resume' | 'stop'): Promise<void>;
  /** The host's socket dropped (or this process drains): the audience waits for the host. */
  hostDropped(): Promise<void>;
  /** The recording ended, its last finals and translations out. */
  recordingEnded(): Promise<void>;
  dispose(): void;
}
