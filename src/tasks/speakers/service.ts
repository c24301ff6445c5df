/**
 * Speaker editing (spec "Speaker editing"): rename, reassign and merge on the transcript of
 * a diarized recording. Speakers have an original id (from diarization or the channel) and
 * an optional display label (alias). Each edit is planned on one transcript revision and
 * committed only if the revision is unchanged (UPDATE ... WHERE revision = ?): of two
 * concurrent edits exactly one applies, the other gets 409 `transcript_revision_conflict`.
 * Applied edits are published on `task.<id>.speakers` for live sessions and broadcasts.
 */
import { type SpeakerEvent, speakerTopic } from '../../bus/topics.js';
import type { EventBus } from '../../bus/types.js';
import type { Principal } from '../../platform/auth/types.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { TaskService } from '../service.js';
import type { TaskRecord, TaskStore } from '../store.js';

export type { SpeakerEvent } from '../../bus/topics.js';
export { speakerTopic } from '../../bus/topics.js';

/** A planned edit: what to write and what to answer, computed on one revision. */
export interface SpeakerPlan<R> {
  taskId: string;
  revision: number;
  labels: Record<string, string>;
  move?: { fromSpeaker?: string; sids?: number[]; to: string };
  result: R;
  event: SpeakerEvent;
}

interface Snapshot {
  task: TaskRecord;
  revision: number;
  labels: Record<string, string>;
  speakers: Map<string, number[]>;
}

const MAX = 100;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the spec forbids exactly these characters
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029\u0085]/;

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

export class SpeakerService {
  constructor(
    private readonly tasks: TaskService,
    private readonly store: TaskStore,
    private readonly bus: EventBus,
  ) {}

  private async snapshot(principal: Principal, taskId: string, op: 'rename' | 'reassign' | 'merge'): Promise<Snapshot> {
    const task = await this.tasks.owned(principal, taskId);
    const mode = task.recognitionMode;
    if (mode !== 'multi_speaker' && mode !== 'multi_channel') {
      throw new AppError('speaker_diarization_required', { details: { recognition_mode: mode } });
    }
    if (mode === 'multi_channel' && op !== 'rename') {
      throw new AppError('speaker_op_not_allowed_multi_channel', { details: { recognition_mode: mode, operation: op } });
    }
    const transcript = await this.store.getTranscript(task.taskId);
    if (!transcript) throw new AppError('speaker_transcript_not_found', { details: { task_id: task.taskId } });
    return { task, revision: transcript.revision, labels: transcript.speakerLabels, speakers: await this.store.speakerSids(task.taskId) };
  }

  private static display(s: Snapshot, id: string): string {
    return Object.hasOwn(s.labels, id) ? (s.labels[id] as string) : id;
  }

  /** Original id first, then current display label (spec: "original id or current display label"). */
  private static resolve(s: Snapshot, given: string, field: string): string {
    if (s.speakers.has(given)) return given;
    for (const id of s.speakers.keys()) if (Object.hasOwn(s.labels, id) && s.labels[id] === given) return id;
    throw new AppError('speaker_not_found', { details: { [field]: given } });
  }

  async planRename(principal: Principal, taskId: string, body: Record<string, unknown>) {
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
    const s = await this.snapshot(principal, taskId, 'rename');
    const id = SpeakerService.resolve(s, speakerGiven, 'speaker_id');
    // Another speaker's name or original id is taken: either would make later lookups by
    // "original id or display label" ambiguous.
    for (const other of s.speakers.keys()) {
      if (other !== id && (SpeakerService.display(s, other) === newLabel || other === newLabel)) {
        throw new AppError('speaker_name_duplicate', { details: { new_label: newLabel, speaker_id: other } });
      }
    }
    const labels = { ...s.labels };
    // Renaming back to the original id removes the alias.
    if (newLabel === id) delete labels[id];
    else labels[id] = newLabel;
    const data = { speaker_id: id, new_label: newLabel, affected_sids: s.speakers.get(id) ?? [] };
    return {
      taskId: s.task.taskId,
      revision: s.revision,
      labels,
      result: data,
      event: { event: 'speaker_renamed', data },
    } satisfies SpeakerPlan<typeof data>;
  }

  async planReassign(principal: Principal, taskId: string, body: Record<string, unknown>) {
    const sid = body.sid;
    if (typeof sid !== 'number' || !Number.isSafeInteger(sid)) {
      throw new AppError('validation_failed', { message: 'sid is required and must be an integer.', details: { field: 'sid' } });
    }
    const target = requireString(body, 'target_speaker_id');
    const s = await this.snapshot(principal, taskId, 'reassign');
    const sentence = await this.store.getSentence(s.task.taskId, sid);
    if (!sentence) throw new AppError('speaker_sid_not_found', { details: { sid } });
    // Reassign takes original ids only.
    if (!s.speakers.has(target)) throw new AppError('speaker_not_found', { details: { target_speaker_id: target } });
    const data = {
      sid,
      old_speaker_id: sentence.speakerId ?? '',
      new_speaker_id: target,
      new_speaker_label: SpeakerService.display(s, target),
    };
    return {
      taskId: s.task.taskId,
      revision: s.revision,
      labels: s.labels,
      move: { sids: [sid], to: target },
      result: data,
      event: { event: 'speaker_reassigned', data },
    } satisfies SpeakerPlan<typeof data>;
  }

  async planMerge(principal: Principal, taskId: string, body: Record<string, unknown>) {
    const sourceGiven = requireString(body, 'source_speaker_id');
    const targetGiven = requireString(body, 'target_speaker_id');
    if (sourceGiven === targetGiven) throw new AppError('merge_speakers_same_id');
    const s = await this.snapshot(principal, taskId, 'merge');
    const source = SpeakerService.resolve(s, sourceGiven, 'source_speaker_id');
    const target = SpeakerService.resolve(s, targetGiven, 'target_speaker_id');
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
    const data = {
      source_speaker_id: source,
      target_speaker_id: target,
      target_speaker_label: Object.hasOwn(labels, target) ? (labels[target] as string) : target,
      affected_sids: [...affected].sort((a, b) => a - b),
    };
    return {
      taskId: s.task.taskId,
      revision: s.revision,
      labels,
      move: { fromSpeaker: source, to: target },
      result: data,
      event: { event: 'speakers_merged', data },
    } satisfies SpeakerPlan<typeof data>;
  }

  /** Writes a plan if its revision is still current, then publishes the event. */
  async commit<R>(plan: SpeakerPlan<R>): Promise<R> {
    let revision: number | null;
    try {
      revision = await this.store.commitSpeakerEdit(plan.taskId, plan.revision, { labels: plan.labels, move: plan.move });
    } catch (err) {
      throw new AppError('storage_upload_failed', { cause: err });
    }
    if (revision === null) throw new AppError('transcript_revision_conflict', { details: { revision: plan.revision } });
    await this.bus.publish(speakerTopic(plan.taskId), plan.event);
    return plan.result;
  }

  async rename(principal: Principal, taskId: string, body: Record<string, unknown>) {
    return this.commit(await this.planRename(principal, taskId, body));
  }

  async reassign(principal: Principal, taskId: string, body: Record<string, unknown>) {
    return this.commit(await this.planReassign(principal, taskId, body));
  }

  async merge(principal: Principal, taskId: string, body: Record<string, unknown>) {
    return this.commit(await this.planMerge(principal, taskId, body));
  }
}
