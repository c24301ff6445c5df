/**
 * The pure parts of a broadcast's host side: the broadcast fields of a WebSocket start, and
 * the phase machine (which events viewers get for each host action).
 */
import { describe, expect, it } from 'vitest';
import { validateBroadcastStart } from '../../src/broadcasts/host-start.js';
import { type BroadcastState, captionsFlow, initialState, step } from '../../src/broadcasts/phase.js';

const ctx = { voices: (l: string) => (l === 'es' ? ['espeak-es-female-1', 'espeak-es-male-1'] : null) };
const base = { type: 'broadcast', broadcast_token: 'ab12', audio_format: 'pcm' };
const reject = (data: Record<string, unknown>) => {
  const r = validateBroadcastStart({ ...base, ...data }, ctx);
  if (r.ok) throw new Error('expected a refusal');
  return { code: r.error.code, details: r.error.details, severity: r.error.severity };
};

describe('broadcast start fields', () => {
  it('accepts the minimal start: live phase by default; empty or null phase means live', () => {
    for (const broadcast_phase of [undefined, null, '']) {
      const r = validateBroadcastStart({ ...base, broadcast_phase }, ctx);
      expect(r.ok && r.start).toEqual({
        token: 'ab12',
        audioFormat: 'pcm',
        phase: 'live',
        standbyMessage: null,
        ttsConfig: null,
        summaryTemplate: null,
      });
    }
  });

  it('takes standby with a message, tts_config (clamped) and a summary template; language fields are ignored', () => {
    const r = validateBroadcastStart(
      {
        ...base,
        audio_format: 'webm',
        broadcast_phase: 'standby',
        standby_message: '  Starting soon  ',
        tts_config: { es: { voice: 'espeak-es-male-1', speaking_rate: 9 } },
        summary_template: 'meeting-minutes',
        transcription_languages: ['fr'],
      },
      ctx,
    );
    expect(r.ok && r.start).toEqual({
      token: 'ab12',
      audioFormat: 'webm',
      phase: 'standby',
      standbyMessage: 'Starting soon',
      ttsConfig: { es: { voice: 'espeak-es-male-1', speaking_rate: 2 } },
      summaryTemplate: 'meeting-minutes',
    });
  });

  it('refuses: no token, a malformed token, no audio_format, an unknown format, a phase in capitals or unknown, bad tts_config', () => {
    expect(reject({ broadcast_token: undefined })).toMatchObject({ code: 'invalid_parameter', details: { field: 'broadcast_token' } });
    expect(reject({ broadcast_token: 'AB12' })).toMatchObject({ code: 'broadcast_token_invalid' });
    expect(reject({ broadcast_token: 1234 })).toMatchObject({ code: 'broadcast_token_invalid' });
    expect(reject({ audio_format: undefined })).toMatchObject({
      code: 'invalid_parameter',
      details: { field: 'audio_format', valid_values: ['pcm', 'webm'] },
    });
    expect(reject({ audio_format: 'PCM' })).toMatchObject({ code: 'audio_format_unsupported', details: { field: 'audio_format' } });
    expect(reject({ broadcast_phase: 'LIVE' })).toMatchObject({
      code: 'invalid_parameter',
      details: { field: 'broadcast_phase', valid_values: ['standby', 'live'] },
    });
    expect(reject({ broadcast_phase: 'paused' })).toMatchObject({ code: 'invalid_parameter', details: { field: 'broadcast_phase' } });
    expect(reject({ standby_message: 5 })).toMatchObject({ code: 'invalid_parameter', details: { field: 'standby_message' } });
    expect(reject({ standby_message: 'x'.repeat(501) })).toMatchObject({
      code: 'invalid_parameter',
      details: { field: 'standby_message' },
    });
    expect(reject({ tts_config: { es: { voice: 'nobody' } } })).toMatchObject({
      code: 'invalid_parameter',
      details: { field: 'tts_config.es.voice' },
    });
    expect(reject({ summary_template: 7 })).toMatchObject({ code: 'invalid_parameter', details: { field: 'summary_template' } });
  });
});

describe('broadcast phase machine', () => {
  const run = (s: BroadcastState, ...kinds: Parameters<typeof step>[1]['kind'][]) => {
    const events: string[] = [];
    let state = s;
    for (const kind of kinds) {
      const r = step(state, { kind } as Parameters<typeof step>[1]);
      if ('error' in r) throw r.error;
      state = r.state;
      events.push(...r.signals.map((x) => x.event));
    }
    return { state, events };
  };

  it('standby -> live -> paused -> live -> ended, with the viewers events in order', () => {
    const s = initialState('standby');
    expect(captionsFlow(s)).toBe(false);
    const r = run(s, 'pause', 'resume', 'go_live', 'pause', 'resume', 'stop');
    expect(r.events).toEqual(['phase_changed', 'recording_started', 'paused', 'resumed', 'ended']);
    expect(r.state.ended).toBe(true);
  });

  it('captions flow only live, unpaused, with the host connected', () => {
    let s = initialState('live');
    expect(captionsFlow(s)).toBe(true);
    s = run(s, 'pause').state;
    expect(captionsFlow(s)).toBe(false);
    s = run(s, 'resume', 'host_dropped').state;
    expect(captionsFlow(s)).toBe(false);
    expect(captionsFlow(run(s, 'host_returned').state)).toBe(true);
  });

  it('host drop freezes (host_disconnected once); the return restores the phase (host_reconnected, resumed)', () => {
    const s = initialState('standby');
    const dropped = run(s, 'host_dropped', 'host_dropped');
    expect(dropped.events).toEqual(['host_disconnected']);
    const back = step(dropped.state, { kind: 'host_returned' });
    expect('signals' in back && back.signals).toEqual([{ event: 'host_reconnected', resumed: true, phase: 'standby' }]);
  });

  it('a return to a live broadcast also sends recording_started (the new recording numbers its sentences from 1)', () => {
    const dropped = run(initialState('live'), 'host_dropped');
    const back = step(dropped.state, { kind: 'host_returned' });
    expect('signals' in back && back.signals).toEqual([
      { event: 'host_reconnected', resumed: true, phase: 'live' },
      { event: 'recording_started' },
    ]);
  });

  it('going live twice is refused; nothing after the end', () => {
    const live = initialState('live');
    const again = step(live, { kind: 'go_live' });
    expect('error' in again && again.error.code).toBe('invalid_data');
    const ended = run(live, 'stop').state;
    const after = step(ended, { kind: 'pause' });
    expect('error' in after && after.error.code).toBe('session_not_started');
  });

  it('going live while paused tells viewers it is paused', () => {
    expect(run(initialState('standby'), 'pause', 'go_live').events).toEqual(['phase_changed', 'recording_started', 'paused']);
  });
});
