/** Wire shapes of tasks and sentences (spec "Task (list item)", "Sentence (history stream)"). */
import type { SentenceRecord, TaskRecord } from './store.js';

/** "mm:ss" with minutes not wrapped at 60 ("75:03"), as the spec's min:sec. */
export function minSec(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

export interface TaskListItem {
  task_id: string;
  title: string;
  type: string;
  type_source: string;
  duration_ms: number;
  duration_formatted: string;
  transcription_languages: string[] | null;
  translation_languages: string[] | null;
  created_at: string;
  processing_status: string;
  is_pinned: boolean;
  is_unread: boolean;
  summary_mode: string | null;
  summary_template: string | null;
  summary_language: string | null;
}

export function taskListItem(t: TaskRecord): TaskListItem {
  return {
    task_id: t.taskId,
    title: t.title,
    type: t.type,
    type_source: t.typeSource,
    duration_ms: t.durationMs,
    duration_formatted: minSec(t.durationMs),
    transcription_languages: t.transcriptionLanguages,
    translation_languages: t.translationLanguages,
    created_at: t.createdAt,
    processing_status: t.processingStatus,
    is_pinned: t.isPinned,
    is_unread: t.isUnread,
    summary_mode: t.summaryMode,
    summary_template: t.summaryTemplate,
    summary_language: t.summaryLanguage,
  };
}

/** GET /tasks/{id}: the list item plus the fields the list leaves out (Parley, beyond the interface). */
export function taskDetail(t: TaskRecord) {
  return {
    ...taskListItem(t),
    name_source: t.nameSource,
    recognition_mode: t.recognitionMode,
    has_audio: t.audioKey !== null,
    import_id: t.importId,
    failure_source: t.failureSource,
    error_code: t.failureCode,
    updated_at: t.updatedAt,
  };
}

/** The display name of a speaker: its alias when renamed, else its original id. */
export function speakerLabel(labels: Record<string, string>, speakerId: string | null): string | null {
  if (speakerId === null) return null;
  return Object.hasOwn(labels, speakerId) ? (labels[speakerId] as string) : speakerId;
}

/**
 * A history sentence. `speaker_id` is the original id (what reassign takes); Parley adds
 * `speaker_label`, the current display name, when the sentence has a speaker, and `language`.
 */
export function sentenceShape(s: SentenceRecord, labels: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    sid: s.sid,
    origin: s.origin,
    translations: s.translations,
    start_time: minSec(s.startMs),
    speaker_id: s.speakerId ?? '',
  };
  if (s.speakerId !== null) out.speaker_label = speakerLabel(labels, s.speakerId);
  // Which of the transcription languages was heard (multi_language sessions, imports among several).
  if (s.language) out.language = s.language;
  // Key present only for languages translated-but-failed (spec "Sentence").
  if (s.translationErrors && Object.keys(s.translationErrors).length) out.translation_errors = s.translationErrors;
  return out;
}
