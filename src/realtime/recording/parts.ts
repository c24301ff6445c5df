/**
 * The parts of one live recording and the wires between them, in one place:
 *
 *   client audio ─▶ input ─▶ recognition ─▶ (samples kept) ─▶ tape, fleet copy; meter hears the length
 *                              │ labelled results
 *                              ▼
 *                           transcript ─ final ─▶ translation
 *                              │                      │
 *                              └── session stream ◀───┘ (through the coordinator, `host.publish`)
 *
 * Each part owns its state; what it needs of the recording as a whole (the session stream, the
 * glossary, the owner's hooks, the snapshot) it asks through `PartsHost`.
 */
import type { Glossary } from '../../glossary/index.js';
import type { Principal } from '../../platform/auth/types.js';
import type { AppError } from '../../platform/errors/app-error.js';
import type { SessionEventBody } from '../../stream/events.js';
import { sentenceError } from '../../stream/sentence-errors.js';
import type { RecordingSnapshot } from '../live/snapshot.js';
import type { StartRequest } from '../start.js';
import { FleetCopy } from './fleet-copy.js';
import { AudioInput } from './input.js';
import { Meter } from './meter.js';
import { Recognition, talkOf } from './recognition.js';
import { Tape } from './tape.js';
import { Transcript } from './transcript.js';
import { Translation } from './translation.js';
import type { RecordingDeps } from './types.js';

export interface Parts {
  input: AudioInput;
  recognition: Recognition;
  transcript: Transcript;
  translation: Translation;
  meter: Meter;
  tape: Tape;
  fleet: FleetCopy;
}

/** What the parts ask of the recording they belong to. */
export interface PartsHost {
  /** Onto the session stream (throws before it is open). */
  publish(event: SessionEventBody): void;
  glossary(): Glossary | null;
  /** A result with text arrived. */
  speech(): void;
  /** A minute could not be charged: the recording must end. */
  mustEnd(err: AppError): void;
  /** Another process took the recording over. */
  lost(): void;
  snapshot(): RecordingSnapshot;
}

export function wireParts(deps: RecordingDeps, principal: Principal, start: StartRequest, host: PartsHost): Parts {
  const { logger, engines } = deps;
  const publish = (event: SessionEventBody) => host.publish(event);
  // The owner's client gets every error; one about a sentence is also a stream event, for the other audiences.
  const error = (err: AppError) => {
    deps.error(err);
    if (err.sid !== undefined) publish(sentenceError(err, err.sid));
  };
  const glossary = () => host.glossary();
  const tape = new Tape(deps.tempDir);
  const fleet = new FleetCopy({ live: deps.live, blobs: deps.blobs, logger, snapshot: () => host.snapshot(), lost: () => host.lost() });
  const meter = new Meter({ billing: deps.billing, logger, error, mustEnd: (err) => host.mustEnd(err) }, principal, start);
  const talk = talkOf(start);
  const translation = new Translation({ engines, logger, error, publish, glossary }, start, talk);
  const transcript = new Transcript({ publish, glossary, speech: () => host.speech(), final: (s, who) => translation.final(s, who) });
  const recognition = new Recognition(
    { engines, logger, error, maxBacklogMs: deps.maxBacklogMs, glossary, positionMs: () => tape.durationMs, results: transcript },
    start,
    talk,
  );
  /** Samples to the recognizers; what the recording keeps (multi_channel: the mix) to the tape and the fleet copy, then billed. */
  const record = (samples: Int16Array): void => {
    const kept = recognition.feed(samples);
    if (kept.length === 0) return;
    const stored = Buffer.alloc(kept.length * 2);
    for (let i = 0; i < kept.length; i++) stored.writeInt16LE(kept[i] as number, i * 2);
    tape.append(stored);
    fleet.append(stored);
    meter.heard(tape.durationMs);
  };
  const input = new AudioInput({ audio: deps.audio, error, accepting: () => tape.recording, samples: record }, start.audioFormat);
  return { input, recognition, transcript, translation, meter, tape, fleet };
}

/** Translation lanes of the session stream's retained log (each final is kept with this many translations). */
export function streamLanes(start: StartRequest): number {
  return start.conversation ? 1 : start.realtimeTranslation ? start.translationLanguages.length : 0;
}
