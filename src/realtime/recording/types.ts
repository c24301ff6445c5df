/**
 * What a live recording (src/realtime/recording.ts) is given, and the ways it ends. Re-exported
 * by recording.ts: importers keep importing from there.
 */
import type { AudioTools } from '../../engines/audio/port.js';
import type { EngineRegistry } from '../../engines/registry.js';
import type { Glossary } from '../../glossary/index.js';
import type { AppError } from '../../platform/errors/app-error.js';
import type { SessionStreams } from '../../stream/session-streams.js';
import type { FinalizeDeps, FinishKind } from '../finalize.js';
import type { OwnerState } from '../live/snapshot.js';
import type { EndState } from '../live/store.js';
import type { StartRequest } from '../start.js';
import type { LiveDeps } from './fleet-copy.js';
import type { MeterBilling } from './meter.js';

export interface RecordingDeps extends FinalizeDeps {
  /** The M4A at the end, and the live decoder of WebM sessions. */
  audio: Pick<AudioTools, 'encodeFile' | 'liveDecoder'>;
  engines: EngineRegistry;
  tempDir: string;
  /** Backpressure of each recognizer stream (StreamingSttOptions.maxBacklogMs). */
  maxBacklogMs: number;
  /** Per-minute billing of live audio (billing service and the plan's limits calculator). */
  billing: MeterBilling;
  /** Live sessions as event streams: results, translations and status go to every audience (src/stream). */
  streams: Pick<SessionStreams, 'publisher'>;
  /** Sends an error to the owner's client (errors are not part of the session stream). */
  error(err: AppError): void;
  /** The recording as the fleet sees it (src/realtime/live): audio segments, lease, snapshot. Absent: this process only. */
  live?: LiveDeps;
}

export type SessionSummary = NonNullable<StartRequest['summary']>;

/**
 * What the owner (the live session, session/session.ts) gives a recording at construction; none
 * of it changes afterwards. Each hook is called with the recording running, so the owner answers
 * with its state at that moment (e.g. its socket after a resume).
 */
export interface RecordingOptions {
  /** The session glossary at the start (`config` later: Recording.setGlossary). */
  readonly glossary?: Glossary | null;
  /** The live_recordings row keeps its hash (a resume on any process finds it). */
  readonly resumeToken?: string | null;
  /** What the owner adds to the snapshot (live/snapshot.ts). */
  readonly owner?: () => OwnerState;
  /** Credit or a plan limit ended the recording: the owner stops it. */
  readonly onMustEnd?: (err: AppError) => void;
  /** A result with text arrived (the silence watch restarts). */
  readonly onSpeech?: () => void;
  /**
   * Another process took this recording over (it stalled past its lease and the grace): the
   * owner lets it go without finalizing it (that process continues or finishes it).
   */
  readonly onLost?: () => void;
}

/**
 * How a recording ends here:
 * - `finish`: recognition ends (the utterance in progress becomes a final), translations and the
 *   minute charge settle, the usage row ends (refunded without audio), and the recording is
 *   finalized into its task (finalize.ts; `kind` forced: the task is being force-failed); the row
 *   ends as `endState` (default `ended`; `grace_expired`: a late resume is told so).
 * - `park`: the same up to the charges, then the last audio and the snapshot are stored and the
 *   row is parked for `graceMs` for another process to continue (a hand-over).
 * - `discard`: what was opened here goes; the row and segments stay (continueFrom failed part
 *   way, or another process took the recording over).
 * - `abandon`: begin() failed part way; everything it made is undone and the task fails.
 */
export type CloseMode =
  | { mode: 'finish'; kind: FinishKind; endState?: EndState }
  | { mode: 'park'; graceMs: number }
  | { mode: 'discard' }
  | { mode: 'abandon' };

/** `kept`: a park that did not happen (the recording is still here, to be finished). */
export type CloseOutcome = 'completed' | 'failed' | 'parked' | 'kept' | 'closed';

/** The mode alone (what each part's close is told). */
export type EndMode = CloseMode['mode'];
