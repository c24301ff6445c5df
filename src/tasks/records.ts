/** The task feature's records as its store returns them, and the rows they are read from. */
import type { Kysely, Transaction } from 'kysely';
import { parseJson } from '../store/columns.js';
import type { Schema } from '../store/schema.js';
import type { FailureSource, RecognitionMode, TaskStatus, TaskType, TypeSource } from './status.js';
import type { SentencesTable, TasksTable, TranscriptsTable } from './tables.js';

export interface TaskRecord {
  taskId: string;
  accountId: string;
  keyId: string;
  title: string;
  nameSource: 'auto' | 'user';
  type: TaskType;
  typeSource: TypeSource;
  recognitionMode: RecognitionMode;
  durationMs: number;
  transcriptionLanguages: string[] | null;
  translationLanguages: string[] | null;
  processingStatus: TaskStatus;
  isPinned: boolean;
  isUnread: boolean;
  summaryMode: string | null;
  summaryTemplate: string | null;
  summaryLanguage: string | null;
  audioKey: string | null;
  sourceKey: string | null;
  importId: string | null;
  failureSource: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface SentenceRecord {
  sid: number;
  origin: string;
  startMs: number;
  endMs: number;
  speakerId: string | null;
  language: string | null;
  translations: Record<string, string> | null;
  translationErrors: Record<string, string> | null;
}

export interface SummaryRecord {
  text: string;
  language: string | null;
  mode: 'builtin' | 'custom';
  template: string | null;
  plainText: boolean;
  promptSnapshot?: string | null;
  fallbackLevel?: 2 | 3 | null;
  droppedSegments?: number[] | null;
}

export interface TranscriptRecord {
  taskId: string;
  revision: number;
  speakerLabels: Record<string, string>;
  /** Speakers without sentences that still exist (their last sentence was reassigned away). */
  keptSpeakers: string[];
  summary: SummaryRecord | null;
}

export interface CreateTaskInput {
  taskId?: string;
  accountId: string;
  keyId: string;
  title: string;
  /** `user` when the caller named the task at start; default `auto`. */
  nameSource?: 'auto' | 'user';
  type: TaskType;
  typeSource: TypeSource;
  recognitionMode: RecognitionMode;
  processingStatus: Extract<TaskStatus, 'recording' | 'importing' | 'uploading' | 'processing'>;
  transcriptionLanguages?: string[] | null;
  translationLanguages?: string[] | null;
  durationMs?: number;
  importId?: string | null;
  sourceKey?: string | null;
  createdAt?: Date;
}

export interface SentenceInput {
  sid: number;
  origin: string;
  startMs: number;
  endMs: number;
  speakerId?: string | null;
  language?: string | null;
}

export interface TranslationInput {
  sid: number;
  /** The translated text; or `error` with a spec error code when translation failed. */
  text?: string;
  error?: string;
}

export interface StatusChange {
  failure?: { source: FailureSource; code?: string; message?: string };
  durationMs?: number;
}

export type Db = Kysely<Schema> | Transaction<Schema>;

export function toTask(r: TasksTable): TaskRecord {
  return {
    taskId: r.task_id,
    accountId: r.account_id,
    keyId: r.key_id,
    title: r.title,
    nameSource: r.name_source as 'auto' | 'user',
    type: r.type as TaskType,
    typeSource: r.type_source as TypeSource,
    recognitionMode: r.recognition_mode as RecognitionMode,
    durationMs: Number(r.duration_ms),
    transcriptionLanguages: parseJson<string[] | null>(r.transcription_languages, null),
    translationLanguages: parseJson<string[] | null>(r.translation_languages, null),
    processingStatus: r.processing_status as TaskStatus,
    isPinned: Number(r.is_pinned) === 1,
    isUnread: Number(r.is_unread) === 1,
    summaryMode: r.summary_mode,
    summaryTemplate: r.summary_template,
    summaryLanguage: r.summary_language,
    audioKey: r.audio_key,
    sourceKey: r.source_key,
    importId: r.import_id,
    failureSource: r.failure_source,
    failureCode: r.failure_code,
    failureMessage: r.failure_message,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toSentence(r: SentencesTable): SentenceRecord {
  return {
    sid: Number(r.sid),
    origin: r.origin,
    startMs: Number(r.start_ms),
    endMs: Number(r.end_ms),
    speakerId: r.speaker_id,
    language: r.language,
    translations: parseJson<Record<string, string> | null>(r.translations, null),
    translationErrors: parseJson<Record<string, string> | null>(r.translation_errors, null),
  };
}

export function toTranscript(r: TranscriptsTable): TranscriptRecord {
  const summary: SummaryRecord | null =
    r.summary === null || r.summary_mode === null
      ? null
      : {
          text: r.summary,
          language: r.summary_language,
          mode: r.summary_mode as 'builtin' | 'custom',
          template: r.summary_template,
          plainText: Number(r.summary_plain_text) === 1,
          promptSnapshot: r.summary_prompt_snapshot,
          fallbackLevel: (r.summary_fallback_level ?? null) as 2 | 3 | null,
          droppedSegments: parseJson<number[] | null>(r.summary_dropped_segments, null),
        };
  return {
    taskId: r.task_id,
    revision: Number(r.revision),
    speakerLabels: parseJson<Record<string, string>>(r.speaker_labels, {}),
    keptSpeakers: parseJson<string[]>(r.kept_speakers, []),
    summary,
  };
}

export const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** Largest IN list sent in one statement (SQLite's variable limit is far above this). */
export const CHUNK = 500;
