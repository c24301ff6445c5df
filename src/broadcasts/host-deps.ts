/**
 * What a broadcast's host session (host-session.ts) is given: its ports (built by
 * src/composition/broadcasts.ts) and the live session it subscribes to.
 */
import type { Logger } from 'pino';
import type { Synthesizer } from '../engines/types.js';
import type { ActivePlan } from '../plans/service.js';
import type { SessionEvent } from '../stream/events.js';
import type { CatchUpDeps } from './catch-up/keeper.js';
import type { RuleContext } from './rules.js';
import type { ViewerSeats } from './seats.js';
import type { HostSinksDeps } from './sinks/host-sinks.js';
import type { BroadcastStore } from './store.js';
import type { ViewerEvent } from './viewer-events.js';

export interface BroadcastHostDeps {
  store: BroadcastStore;
  seats: ViewerSeats;
  /** Sends an event to every viewer of the broadcast, on every node. */
  publish(broadcastId: string, event: ViewerEvent): Promise<void>;
  /** Host text (announcements, standby messages) in another language; null when no engine serves the pair. */
  translate(text: string, from: string, to: string): Promise<string | null>;
  /** The synthesizer serving `language` here (viewers' tts_ready audio), or null. */
  synthesizer(language: string, voice?: string | null): Synthesizer | null;
  /** How often the sentence being spoken is translated for viewers (interim translations). */
  interimTranslationMs: number;
  /** Catch-up summaries for late joiners (absent: the deployment turned them off). */
  catchUp?: CatchUpDeps;
  activePlan(accountId: string): Promise<ActivePlan>;
  /** Calls `handler` when the broadcast is revoked (REST, any node). */
  onRevoked(broadcastId: string, handler: () => void): Promise<() => void>;
  rules: Pick<RuleContext, 'voices'>;
  /** Caption sinks (YouTube Live, Zoom): fed the live finals on this node. */
  sinks: HostSinksDeps;
  /** How long a frozen broadcast waits for its host before it ends. */
  hostWaitMs: number;
  /** How long this process holds the broadcast without renewing (renewed every third; host-lease.ts). */
  hostLeaseMs: number;
  now: () => Date;
  logger: Logger;
}

/** Text into another language through the recording's translator with its session glossary (what its finals get). */
export type SessionTranslate = (text: string, from: string, to: string) => Promise<string>;

/** The live session a broadcast subscribes to on the host's node (src/realtime/ports.ts AudienceSession, wired in src/app.ts). */
export interface BroadcastSession {
  taskId: string;
  /** This node's listeners of the session stream; returns the detach function. */
  subscribe(listener: (event: SessionEvent) => void): () => void;
  translate: SessionTranslate;
  /** Milliseconds of audio recorded so far (the timeline of the results' times). */
  recordedMs(): number;
}
