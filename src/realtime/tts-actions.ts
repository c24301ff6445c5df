/**
 * The in-session TTS actions (spec "Client actions"): tts_play {sid, length <= 20}, tts_stop,
 * tts_mode {tts_mode} -> tts_mode_changed, set_tts {tts_enabled, tts_language, tts_voice,
 * tts_config} -> tts_updated, set_speaking_speed {speaking_speed} -> tts_updated. Each needs a
 * running recording (session_not_started); `record` recordings get record_tts_not_allowed.
 */

import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { RealtimePorts } from './ports.js';
import { eventMessage } from './protocol.js';
import type { Recording } from './recording.js';
import { type SessionTts, TTS_PLAY_MAX } from './session-tts.js';
import { parseSpeakingSpeed, parseTtsMode, ttsJson, updateTts } from './tts-settings.js';

export interface TtsContext {
  running: Recording | null;
  speech: SessionTts | null;
  /** Creates the recording's speech on set_tts when the start asked for none. */
  makeSpeech(rec: Recording, settings: NonNullable<SessionTts['settings']>): SessionTts;
  principal: Principal;
  ports: Pick<RealtimePorts, 'assertPlanFeature' | 'engines'>;
  send(text: string): void;
  sendError(err: AppError): void;
}

type Data = Record<string, unknown>;
const ws = { variant: 'websocket' as const };

const invalid = (action: string, field: string, message: string, extra: Record<string, unknown> = {}) =>
  new AppError('invalid_data', { ...ws, message, details: { action, field, ...extra } });

/** The running recording that may speak, or null after the client was told why not. */
function speaking(c: TtsContext, action: string): Recording | null {
  const rec = c.running;
  if (!rec) {
    c.sendError(new AppError('session_not_started', { ...ws, details: { action } }));
    return null;
  }
  if (rec.start.type === 'record') {
    c.sendError(new AppError('record_tts_not_allowed', { ...ws, details: { action } }));
    return null;
  }
  return rec;
}

export function ttsPlayAction(c: TtsContext, data: Data): void {
  if (!speaking(c, 'tts_play')) return;
  const speech = c.speech;
  if (!speech?.settings.enabled) {
    c.sendError(invalid('tts_play', 'tts_enabled', 'TTS is not enabled in this session (set_tts).', { reason: 'tts_disabled' }));
    return;
  }
  const { sid, length = 1 } = data;
  if (typeof sid !== 'number' || !Number.isInteger(sid) || sid < 0) {
    c.sendError(invalid('tts_play', 'sid', 'sid must be a sentence id (a whole number).'));
    return;
  }
  if (typeof length !== 'number' || !Number.isInteger(length) || length < 1 || length > TTS_PLAY_MAX) {
    c.sendError(invalid('tts_play', 'length', `length must be a whole number from 1 to ${TTS_PLAY_MAX}.`, { max: TTS_PLAY_MAX }));
    return;
  }
  if (speech.play(sid, length) === 0) {
    c.sendError(
      invalid('tts_play', 'sid', `No sentence from ${sid} has a translation into ${speech.settings.language} yet.`, {
        reason: 'no_translation',
      }),
    );
  }
}

export function ttsStopAction(c: TtsContext): void {
  if (!speaking(c, 'tts_stop')) return;
  c.send(eventMessage('tts_stopped', { dropped: c.speech?.stop() ?? 0 }));
}

export function ttsModeAction(c: TtsContext, data: Data): void {
  if (!speaking(c, 'tts_mode')) return;
  const mode = parseTtsMode(data);
  if (mode instanceof AppError) {
    c.sendError(mode);
    return;
  }
  c.speech?.setMode(mode);
  c.send(eventMessage('tts_mode_changed', { tts_mode: mode }));
}

export async function setTtsAction(c: TtsContext, data: Data): Promise<void> {
  const rec = speaking(c, 'set_tts');
  if (!rec) return;
  const next = updateTts(data, c.speech?.settings ?? null, rec.start.translationLanguages, {
    ttsVoices: (l) => c.ports.engines.ttsVoices?.(l) ?? null,
  });
  if (next instanceof AppError) {
    c.sendError(next);
    return;
  }
  if (next === null) {
    c.send(eventMessage('tts_updated', ttsJson(null)));
    return;
  }
  // Turned on mid-session: the plan must include it (and the per-minute check then watches it).
  if (next.enabled && !rec.start.ttsEnabled) await c.ports.assertPlanFeature(c.principal, 'tts', 'tts_enabled');
  rec.setTtsEnabled(next.enabled);
  const speech = c.speech ?? c.makeSpeech(rec, next);
  speech.settings = next;
  c.send(eventMessage('tts_updated', ttsJson(next)));
}

export function setSpeakingSpeedAction(c: TtsContext, data: Data): void {
  if (!speaking(c, 'set_speaking_speed')) return;
  const rate = parseSpeakingSpeed(data);
  if (rate instanceof AppError) {
    c.sendError(rate);
    return;
  }
  const speech = c.speech;
  if (!speech) {
    c.sendError(
      new AppError('set_speaking_speed_failed', {
        ...ws,
        message: 'TTS is not set up in this session (start with tts_enabled, or set_tts).',
        details: { action: 'set_speaking_speed', reason: 'tts_disabled' },
      }),
    );
    return;
  }
  speech.settings = { ...speech.settings, speakingRate: rate };
  c.send(eventMessage('tts_updated', ttsJson(speech.settings)));
}
