/**
 * Task processing_status and its transition table (spec "Task processing_status"), plus the
 * one transition the spec leaves open: retry moves a failed task back to processing.
 */
export const TASK_STATUSES = ['recording', 'importing', 'uploading', 'pending', 'processing', 'completed', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** States in which a task is still being produced: delete refused, force-fail allowed. */
export const IN_PROGRESS: readonly TaskStatus[] = ['recording', 'importing', 'uploading', 'pending', 'processing'];

/** `status=active` of the list (spec rule 1: pending is legacy and not listed there). */
export const ACTIVE: readonly TaskStatus[] = ['recording', 'importing', 'uploading', 'processing'];

const TRANSITIONS: Record<TaskStatus, readonly TaskStatus[]> = {
  recording: ['uploading', 'failed'],
  importing: ['uploading', 'failed'],
  uploading: ['processing', 'failed'],
  pending: ['processing', 'failed'],
  processing: ['completed', 'failed'],
  completed: [],
  // Parley: retry (POST .../retry) reprocesses from the stored audio.
  failed: ['processing'],
};

export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The states a task may be in for a move to `to`. */
export function sourcesOf(to: TaskStatus): TaskStatus[] {
  return TASK_STATUSES.filter((s) => TRANSITIONS[s].includes(to));
}

export type RecognitionMode = 'single' | 'multi_speaker' | 'multi_language' | 'multi_channel';
export type TaskType = 'transcribe' | 'conversation' | 'record' | 'broadcast';
export type TypeSource = 'realtime' | 'import' | 'broadcast';
export type FailureSource = 'user_forced' | 'no_audio' | 'processing';

export function hasDiarization(mode: string): boolean {
  return mode === 'multi_speaker' || mode === 'multi_channel';
}
