/**
 * A host's `start` of type broadcast, before its recording begins (the audiences port's
 * `prepare`, src/realtime/audiences.ts): the broadcast's own fields, the plan, the channel.
 */
import { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { BroadcastHostDeps } from './host-deps.js';
import { BroadcastHost } from './host-session.js';
import { validateBroadcastStart } from './host-start.js';

const ws = { variant: 'websocket' as const };

/** The regular start fields a broadcast's recording runs with (validated by src/realtime/start.ts). */
export type StartData = Record<string, unknown>;

export type Prepared = { ok: true; host: BroadcastHost; startData: StartData } | { ok: false; error: AppError };

/**
 * Checks a `start` of type broadcast: its own fields, the plan (403 plan_feature_not_allowed:
 * plan-bound unlimited keys cannot broadcast), and the channel the token names, which must
 * be the caller's and usable. The recording's settings come from the channel.
 */
export async function prepareBroadcast(deps: BroadcastHostDeps, principal: Principal, data: StartData): Promise<Prepared> {
  const checked = validateBroadcastStart(data, deps.rules);
  if (!checked.ok) return checked;
  try {
    PlanService.assertFeature(await deps.activePlan(principal.accountId), 'broadcast', 'type');
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: new AppError(err.code, { ...ws, details: err.details ?? undefined }) };
    throw err;
  }
  const channel = await deps.store.findByToken(checked.start.token);
  if (!channel || channel.accountId !== principal.accountId) {
    return { ok: false, error: new AppError('broadcast_token_invalid', { ...ws, details: { field: 'broadcast_token' } }) };
  }
  if (channel.status === 'revoked') return { ok: false, error: new AppError('broadcast_token_revoked', ws) };
  if (channel.status === 'ended') return { ok: false, error: new AppError('broadcast_session_ended', ws) };
  const s = checked.start;
  const startData: StartData = {
    type: 'transcribe',
    transcription_languages: channel.transcriptionLanguages,
    translation_languages: channel.translationLanguages,
    realtime_translation: true,
    audio_format: s.audioFormat,
    recognition_mode: channel.speakerDiarization ? 'multi_speaker' : 'single',
    name: channel.name ? [...channel.name].slice(0, 60).join('') : undefined,
    summary_template: s.summaryTemplate ?? channel.summaryTemplate ?? undefined,
    summary_language: channel.summaryLanguage,
  };
  return { ok: true, host: new BroadcastHost(deps, principal, channel, s), startData };
}
