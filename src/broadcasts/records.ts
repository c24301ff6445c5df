/** A broadcast as its store returns it, and how it maps to and from its row (store.ts). */
import { parseJson } from '../store/columns.js';
import type { AccessType, BroadcastSettings, TtsSetting } from './rules.js';
import type { BroadcastsTable } from './tables.js';

export type BroadcastStatus = 'pending' | 'active' | 'ended' | 'revoked';
export type BroadcastPhase = 'standby' | 'live' | 'paused';

export interface Broadcast extends BroadcastSettings {
  id: string;
  accountId: string;
  keyId: string;
  token: string;
  passCodeHash: string | null;
  accessVersion: number;
  status: BroadcastStatus;
  phase: BroadcastPhase | null;
  taskId: string | null;
  hostKeyId: string | null;
  frozenAt: string | null;
  liveSince: string | null;
  /** The languages viewers can listen to, as the hosting node published them (null before a host started). */
  ttsLanguages: string[] | null;
  peakViewers: number;
  totalViewers: number;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  endedAt: string | null;
  revokedAt: string | null;
}

export const USABLE: BroadcastStatus[] = ['pending', 'active'];

export function fromRow(r: BroadcastsTable): Broadcast {
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    token: r.token,
    name: r.name,
    accessType: r.access_type as AccessType,
    passCodeHash: r.pass_code_hash,
    accessVersion: Number(r.access_version),
    transcriptionLanguages: parseJson<string[]>(r.transcription_languages, []),
    translationLanguages: parseJson<string[]>(r.translation_languages, []),
    speakerDiarization: Number(r.speaker_diarization) === 1,
    maxViewers: Number(r.max_viewers),
    ttsConfig: parseJson<Record<string, TtsSetting>>(r.tts_config, {}),
    summaryTemplate: r.summary_template,
    summaryLanguage: r.summary_language,
    callbackUrl: r.callback_url,
    catchUp: Number(r.catch_up) === 1,
    status: r.status as BroadcastStatus,
    phase: r.phase as BroadcastPhase | null,
    taskId: r.task_id,
    hostKeyId: r.host_key_id,
    frozenAt: r.frozen_at,
    liveSince: r.live_since,
    ttsLanguages: r.tts_languages === null ? null : parseJson<string[]>(r.tts_languages, []),
    peakViewers: Number(r.peak_viewers),
    totalViewers: Number(r.total_viewers),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    revokedAt: r.revoked_at,
  };
}

export function settingsColumns(s: BroadcastSettings) {
  return {
    access_type: s.accessType,
    transcription_languages: JSON.stringify(s.transcriptionLanguages),
    translation_languages: JSON.stringify(s.translationLanguages),
    speaker_diarization: s.speakerDiarization ? 1 : 0,
    max_viewers: s.maxViewers,
    tts_config: JSON.stringify(s.ttsConfig),
    summary_template: s.summaryTemplate,
    summary_language: s.summaryLanguage,
    callback_url: s.callbackUrl,
    catch_up: s.catchUp ? 1 : 0,
  };
}

export interface NewBroadcast {
  id: string;
  accountId: string;
  keyId: string;
  token: string;
  settings: BroadcastSettings;
  passCodeHash: string | null;
  now: Date;
}
