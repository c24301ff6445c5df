/**
 * The rules of speaker editing (spec "Speaker editing"), on a snapshot of a transcript's
 * speakers, shared by the REST endpoints (service.ts, on the stored transcript) and the live
 * WebSocket actions (src/realtime/speaker-actions.ts, on the running recording). Each plan
 * returns what to write and what to answer, or throws the spec's AppError.
 *
 * A speaker exists while it has sentences, and also after its last sentence was reassigned
 * away (`kept`): otherwise a reassign could not be undone. A merge removes its source.
 */
import type { SpeakerEvent } from '../bus/topics.js';
import { AppError } from '../platform/errors/app-error.js';

export interface SpeakerSnapshot {
  /** Original speaker id -> display label (renamed speakers only). */
  labels: Record<string, string>;
  /** Speakers without sentences that still exist. */
  kept: readonly string[];
  /** Every existing speaker (with sentences, then kept ones) -> its sids. */
  speakers: ReadonlyMap<string, readonly number[]>;
}

export interface SpeakerEditPlan<R> {
  labels: Record<string, string>;
  kept: string[];
  move?: { fromSpeaker?: string; sids?: number[]; to: string };
  result: R;
  event: SpeakerEvent;
}

const MAX = 100;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the spec forbids exactly these characters
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029\u0085]/;

export type SpeakerOp = 'rename' | 'reassign' | 'merge';

/** Speaker edits need speakers: multi_speaker, or multi_channel (rename only). */
export function assertSpeakerMode(mode: string, op: SpeakerOp): void {
  if (mode !== 'multi_speaker' && mode !== 'multi_channel') {
    throw new AppError('speaker_diarization_required', { details: { recognition_mode: mode } });
  }
  if (mode === 'multi_channel' && op !== 'rename') {
    throw new AppError('speaker_op_not_allowed_multi_channel', { details: { recognition_mode: mode, operation: op } });
  }
}

function requireString(body: Record<string, unknown>, field: string): string {
  const v = body[field];
  if (typeof v !== 'string') {
    throw new AppError('validation_failed', { message: `${field} is required and must be a string.`, details: { field } });
  }
  if (v.length > MAX) {
    throw new AppError('validation_failed', { message: `${field} must be at most ${MAX} characters.`, details: { field, max: MAX } });
  }
  return v;
}

export function requireSid(body: Record<string, unknown>): number {
  const sid = body.sid;
  if (typeof sid !== 'number' || !Number.isSafeInteger(sid)) {
    throw new AppError('validation_failed', { message: 'sid is required and must be an integer.', details: { field: 'sid' } });
  }
  return sid;
}

function display(s: SpeakerSnapshot, id: string): string {
  return Object.hasOwn(s.labels, id) ? (s.labels[id] as string) : id;
}

/** Original id first, then current display label (spec: "original id or current display label"). */
function resolve(s: SpeakerSnapshot, given: string, field: string): string {
  if (s.speakers.has(given)) return given;
  for (const id of s.speakers.keys()) if (Object.hasOwn(s.labels, id) && s.labels[id] === given) return id;
  throw new AppError('speaker_not_found', { details: { [field]: given } });
}

/** Checks the body's fields before anything is read (validation_failed, speaker_name_empty). */
export function parseRename(body: Record<string, unknown>): { speakerGiven: string; newLabel: string } {
  const speakerGiven = requireString(body, 'speaker_id');
  const raw = requireString(body, 'new_label');
  if (CONTROL.test(raw)) {
    throw new AppError('validation_failed', {
      message: 'new_label must not contain control characters or line breaks.',
      details: { field: 'new_label' },
    });
  }
  const newLabel = raw.trim();
  if (newLabel === '') throw new AppError('speaker_name_empty');
  return { speakerGiven, newLabel };
}

export function planRename(s: SpeakerSnapshot, body: { speakerGiven: string; newLabel: string }) {
  const { newLabel } = body;
  const id = resolve(s, body.speakerGiven, 'speaker_id');
  // Another speaker's name or original id is taken: either would make later lookups by
  // "original id or display label" ambiguous.
  for (const other of s.speakers.keys()) {
    if (other !== id && (display(s, other) === newLabel || other === newLabel)) {
      throw new AppError('speaker_name_duplicate', { details: { new_label: newLabel, speaker_id: other } });
    }
  }
  const labels = { ...s.labels };
  // Renaming back to the original id removes the alias.
  if (newLabel === id) delete labels[id];
  else labels[id] = newLabel;
  const data = { speaker_id: id, new_label: newLabel, affected_sids: [...(s.speakers.get(id) ?? [])] };
  return { labels, kept: [...s.kept], result: data, event: { event: 'speaker_renamed', data } } satisfies SpeakerEditPlan<typeof data>;
}

/** `sentence`: the sentence `sid` names (null when there is none). */
export function planReassign(s: SpeakerSnapshot, sid: number, targetGiven: string, sentence: { speakerId: string | null } | null) {
  if (!sentence) throw new AppError('speaker_sid_not_found', { details: { sid } });
  // Reassign takes original ids only.
  if (!s.speakers.has(targetGiven)) throw new AppError('speaker_not_found', { details: { target_speaker_id: targetGiven } });
  const target = targetGiven;
  const old = sentence.speakerId;
  const kept = s.kept.filter((k) => k !== target);
  // The old speaker stays when this was its last sentence (the move can be undone).
  if (old !== null && old !== target && (s.speakers.get(old) ?? []).every((x) => x === sid) && !kept.includes(old)) kept.push(old);
  const data = { sid, old_speaker_id: old ?? '', new_speaker_id: target, new_speaker_label: display(s, target) };
  return {
    labels: s.labels,
    kept,
    move: { sids: [sid], to: target },
    result: data,
    event: { event: 'speaker_reassigned', data },
  } satisfies SpeakerEditPlan<typeof data>;
}

export function parseReassign(body: Record<string, unknown>): { sid: number; target: string } {
  const sid = requireSid(body);
  return { sid, target: requireString(body, 'target_speaker_id') };
}

export function parseMerge(body: Record<string, unknown>): { sourceGiven: string; targetGiven: string } {
  const sourceGiven = requireString(body, 'source_speaker_id');
  const targetGiven = requireString(body, 'target_speaker_id');
  if (sourceGiven === targetGiven) throw new AppError('merge_speakers_same_id');
  return { sourceGiven, targetGiven };
}

export function planMerge(s: SpeakerSnapshot, body: { sourceGiven: string; targetGiven: string }) {
  const source = resolve(s, body.sourceGiven, 'source_speaker_id');
  const target = resolve(s, body.targetGiven, 'target_speaker_id');
  if (source === target) throw new AppError('merge_speakers_same_id', { details: { speaker_id: source } });
  const labels = { ...s.labels };
  const affected = new Set(s.speakers.get(source) ?? []);
  // The source alias moves to the target when the target has none; the target's
  // sentences then show a new name too.
  if (Object.hasOwn(labels, source) && !Object.hasOwn(labels, target)) {
    labels[target] = labels[source] as string;
    for (const sid of s.speakers.get(target) ?? []) affected.add(sid);
  }
  delete labels[source];
  const sourceHadSentences = (s.speakers.get(source) ?? []).length > 0;
  const kept = s.kept.filter((k) => k !== source && !(k === target && sourceHadSentences));
  const data = {
    source_speaker_id: source,
    target_speaker_id: target,
    target_speaker_label: Object.hasOwn(labels, target) ? (labels[target] as string) : target,
    affected_sids: [...affected].sort((a, b) => a - b),
  };
  return {
    labels,
    kept,
    move: { fromSpeaker: source, to: target },
    result: data,
    event: { event: 'speakers_merged', data },
  } satisfies SpeakerEditPlan<typeof data>;
}
