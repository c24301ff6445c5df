/**
 * What another process needs to continue a live recording (a resume there) or to finish it
 * (its process died): everything of the recording that is not audio, as JSON in its
 * live_recordings row, saved with each audio segment and when the recording is handed over.
 */
import type { Glossary } from '../../glossary/index.js';
import type { SessionEvent } from '../../stream/events.js';
import type { SentenceInput, TranslationInput } from '../../tasks/store.js';
import type { ChannelSpec } from '../channel-spec.js';
import type { ConversationSpeaker } from '../conversation.js';
import type { StartRequest } from '../start.js';
import type { TtsSettings } from '../tts-settings.js';

/** What the connection that owns a recording adds to its snapshot. */
export interface OwnerState {
  /** The start's fields as sent (set_summary validates against them). */
  rawStart: Record<string, unknown>;
  status: 'started' | 'paused';
  /** Session events the client missed while away (handed to the resuming connection). */
  gap: SessionEvent[];
  /** In-session TTS as it is now (set_tts, tts_mode may have changed the start's); null: none. */
  tts: TtsSettings | null;
}

export interface RecordingSnapshot extends OwnerState {
  v: 1;
  sessionId: string;
  start: StartRequest;
  language: string;
  summary: StartRequest['summary'];
  glossary: Glossary | null;
  /** The sid the next final gets. */
  nextSid: number;
  sentences: SentenceInput[];
  translations: Record<string, TranslationInput[]>;
  speakerLabels: Record<string, string>;
  keptSpeakers: string[];
  mergedInto: [string, string][];
  talk: { speakers: ConversationSpeaker[]; active: string } | null;
  minutesCharged: number;
  /** Seq of the session stream's last event: the stream goes on from the next one. */
  seq: number;
  /** multi_channel: the channels now (they may differ from the start's). */
  channels: ChannelSpec[] | null;
}

export function parseSnapshot(json: string): RecordingSnapshot {
  const s = JSON.parse(json) as RecordingSnapshot;
  if (s.v !== 1) throw new Error(`unknown live recording snapshot version ${String(s.v)}`);
  return s;
}
