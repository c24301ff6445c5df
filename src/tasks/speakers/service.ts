/**
 * Speaker editing (spec "Speaker editing"): rename, reassign and merge on the transcript of
 * a diarized recording. Speakers have an original id (from diarization or the channel) and
 * an optional display label (alias); the rules are in rules.ts (shared with the live
 * WebSocket actions). Each edit is planned on one transcript revision and committed only if
 * the revision is unchanged (UPDATE ... WHERE revision = ?): of two concurrent edits exactly
 * one applies, the other gets 409 `transcript_revision_conflict`. Applied edits are published
 * on `task.<id>.speakers` for live sessions and broadcasts.
 */
import { type SpeakerEvent, speakerTopic } from '../../bus/topics.js';
import type { EventBus } from '../../bus/types.js';
import type { Principal } from '../../platform/auth/types.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { TaskService } from '../service.js';
import {
  assertSpeakerMode,
  parseMerge,
  parseReassign,
  parseRename,
  planMerge,
  planReassign,
  planRename,
  type SpeakerEditPlan,
  type SpeakerOp,
  type SpeakerSnapshot,
} from '../speaker-rules.js';
import type { TaskRecord, TaskStore } from '../store.js';

export type { SpeakerEvent } from '../../bus/topics.js';
export { speakerTopic } from '../../bus/topics.js';

/** A planned edit on one revision of a stored transcript. */
export interface SpeakerPlan<R> extends SpeakerEditPlan<R> {
  taskId: string;
  revision: number;
}

interface Snapshot extends SpeakerSnapshot {
  task: TaskRecord;
  revision: number;
}

export class SpeakerService {
  constructor(
    private readonly tasks: TaskService,
    private readonly store: TaskStore,
    private readonly bus: EventBus,
  ) {}

  private async snapshot(principal: Principal, taskId: string, op: SpeakerOp): Promise<Snapshot> {
    const task = await this.tasks.owned(principal, taskId);
    assertSpeakerMode(task.recognitionMode, op);
    const transcript = await this.store.getTranscript(task.taskId);
    if (!transcript) throw new AppError('speaker_transcript_not_found', { details: { task_id: task.taskId } });
    return {
      task,
      revision: transcript.revision,
      labels: transcript.speakerLabels,
      kept: transcript.keptSpeakers,
      speakers: await this.store.speakerSids(task.taskId, transcript.keptSpeakers),
    };
  }

  private static plan<R>(s: Snapshot, edit: SpeakerEditPlan<R>): SpeakerPlan<R> {
    return { ...edit, taskId: s.task.taskId, revision: s.revision };
  }

  async planRename(principal: Principal, taskId: string, body: Record<string, unknown>) {
    const input = parseRename(body);
    const s = await this.snapshot(principal, taskId, 'rename');
    return SpeakerService.plan(s, planRename(s, input));
  }

  async planReassign(principal: Principal, taskId: string, body: Record<string, unknown>) {
    const { sid, target } = parseReassign(body);
    const s = await this.snapshot(principal, taskId, 'reassign');
    const sentence = await this.store.getSentence(s.task.taskId, sid);
    return SpeakerService.plan(s, planReassign(s, sid, target, sentence ? { speakerId: sentence.speakerId ?? null } : null));
  }

  async planMerge(principal: Principal, taskId: string, body: Record<string, unknown>) {
    const input = parseMerge(body);
    const s = await this.snapshot(principal, taskId, 'merge');
    return SpeakerService.plan(s, planMerge(s, input));
  }

  /** Writes a plan if its revision is still current, then publishes the event. */
  async commit<R>(plan: SpeakerPlan<R>): Promise<R> {
    let revision: number | null;
    try {
      revision = await this.store.commitSpeakerEdit(plan.taskId, plan.revision, { labels: plan.labels, kept: plan.kept, move: plan.move });
    } catch (err) {
      throw new AppError('storage_upload_failed', { cause: err });
    }
    if (revision === null) throw new AppError('transcript_revision_conflict', { details: { revision: plan.revision } });
    await this.bus.publish(speakerTopic(plan.taskId), plan.event as SpeakerEvent);
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
