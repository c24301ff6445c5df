/**
 * What a broadcast's viewers are published for its recording's events, by speaker mode:
 * speaker_id only in multi-speaker mode (origin), translations carry their sentence's
 * speaker, labels follow renames and merges, and speaker edits reach viewers of a live
 * multi-speaker broadcast only. (Live multi-speaker recognition comes with the live modes;
 * here the recording's events are fed to the host session as the connection feeds them.)
 */
import { describe, expect, it } from 'vitest';
import { BroadcastHost, type BroadcastHostDeps } from '../../src/broadcasts/host-session.js';
import type { Broadcast } from '../../src/broadcasts/store.js';
import type { ViewerEvent } from '../../src/broadcasts/viewer-events.js';
import { createLogger } from '../../src/platform/logging.js';

function hostOf(speakerDiarization: boolean, phase: 'live' | 'standby' = 'live') {
  const seen: ViewerEvent[] = [];
  const deps = {
    publish: async (_id: string, e: ViewerEvent) => {
      seen.push(e);
    },
    translate: async () => null,
    synthesizer: () => null,
    interimTranslationMs: 10_000,
    logger: createLogger('silent'),
    now: () => new Date(),
  } as unknown as BroadcastHostDeps;
  const channel = {
    id: 'b1',
    transcriptionLanguages: ['en'],
    translationLanguages: ['es'],
    speakerDiarization,
    ttsConfig: {},
  } as unknown as Broadcast;
  const start = { token: 'ab12', audioFormat: 'pcm', phase, standbyMessage: null, ttsConfig: null, summaryTemplate: null } as const;
  const host = new BroadcastHost(deps, { accountId: 'a', keyId: 'k' }, channel, start);
  return { host, seen };
}

const result = (sid: number, speaker: string | null, isFinal = true) => ({
  origin: {
    sid,
    language: 'en',
    text: `sentence ${sid}`,
    is_final: isFinal,
    speaker_id: speaker,
    detected_language: null,
    start_time: '00:01',
    end_ms: 1500,
  },
});
const tick = () => new Promise((r) => setImmediate(r));

describe('broadcast host: speakers in what viewers get', () => {
  it('multi-speaker: origin and translation carry speaker_id and the current label; renames, reassigns and merges reach viewers', async () => {
    const { host, seen } = hostOf(true);
    host.fromRecording('result', result(1, 'S1'));
    host.fromRecording('translation', { sid: 1, language: 'es', text: 'frase 1', is_final: true });
    host.fromRecording('speaker_renamed', { speaker_id: 'S1', new_label: 'Alice', affected_sids: [1] });
    host.fromRecording('result', result(2, 'S1'));
    host.fromRecording('translation', { sid: 2, language: 'es', text: 'frase 2', is_final: true });
    host.fromRecording('speaker_reassigned', { sid: 2, old_speaker_id: 'S1', new_speaker_id: 'S2', new_speaker_label: 'S2' });
    host.fromRecording('translation', { sid: 2, language: 'es', text: 'frase 2 bis', is_final: true });
    host.fromRecording('speakers_merged', {
      source_speaker_id: 'S2',
      target_speaker_id: 'S1',
      target_speaker_label: 'Alice',
      affected_sids: [2],
    });
    host.fromRecording('translation', { sid: 2, language: 'es', text: 'frase 2 ter', is_final: true });
    await tick();
    expect(seen.map((e) => [e.event, e.data])).toEqual([
      ['origin', { sid: 1, text: 'sentence 1', speaker_id: 'S1', speaker_label: 'S1', start_time: '00:00', is_final: true }],
      ['translation', { sid: 1, language: 'es', text: 'frase 1', speaker_id: 'S1', speaker_label: 'S1', is_final: true }],
      ['speaker_renamed', { speaker_id: 'S1', new_label: 'Alice', affected_sids: [1] }],
      ['origin', { sid: 2, text: 'sentence 2', speaker_id: 'S1', speaker_label: 'Alice', start_time: '00:00', is_final: true }],
      ['translation', { sid: 2, language: 'es', text: 'frase 2', speaker_id: 'S1', speaker_label: 'Alice', is_final: true }],
      ['speaker_reassigned', { sid: 2, old_speaker_id: 'S1', new_speaker_id: 'S2', new_speaker_label: 'S2' }],
      ['translation', { sid: 2, language: 'es', text: 'frase 2 bis', speaker_id: 'S2', speaker_label: 'S2', is_final: true }],
      ['speakers_merged', { source_speaker_id: 'S2', target_speaker_id: 'S1', target_speaker_label: 'Alice', affected_sids: [2] }],
      ['translation', { sid: 2, language: 'es', text: 'frase 2 ter', speaker_id: 'S1', speaker_label: 'Alice', is_final: true }],
    ]);
  });

  it('a live diarization correction of an earlier final (source diarization) reaches viewers; that sentence is spoken of as the new speaker', async () => {
    const { host, seen } = hostOf(true);
    host.fromRecording('result', result(1, '1'));
    host.fromRecording('result', result(2, '2'));
    host.fromRecording('speaker_reassigned', {
      sid: 1,
      old_speaker_id: '1',
      new_speaker_id: '2',
      new_speaker_label: '2',
      source: 'diarization',
    });
    host.fromRecording('translation', { sid: 1, language: 'es', text: 'frase 1', is_final: true });
    await tick();
    expect(seen.slice(2).map((e) => [e.event, e.data])).toEqual([
      ['speaker_reassigned', { sid: 1, old_speaker_id: '1', new_speaker_id: '2', new_speaker_label: '2', source: 'diarization' }],
      ['translation', { sid: 1, language: 'es', text: 'frase 1', speaker_id: '2', speaker_label: '2', is_final: true }],
    ]);
  });

  it('single speaker: no speaker_id on origin, null speaker fields on translations, no speaker events', async () => {
    const { host, seen } = hostOf(false);
    host.fromRecording('result', result(1, null));
    host.fromRecording('translation', { sid: 1, language: 'es', text: 'frase 1', is_final: true });
    host.fromRecording('speaker_renamed', { speaker_id: 'S1', new_label: 'Alice', affected_sids: [] });
    await tick();
    expect(seen.map((e) => [e.event, e.data])).toEqual([
      ['origin', { sid: 1, text: 'sentence 1', speaker_label: null, start_time: '00:00', is_final: true }],
      ['translation', { sid: 1, language: 'es', text: 'frase 1', speaker_id: null, speaker_label: null, is_final: true }],
    ]);
  });

  it('standby: neither captions nor speaker edits reach viewers', async () => {
    const { host, seen } = hostOf(true, 'standby');
    host.fromRecording('result', result(1, 'S1'));
    host.fromRecording('speaker_renamed', { speaker_id: 'S1', new_label: 'Alice', affected_sids: [1] });
    await tick();
    expect(seen).toEqual([]);
  });
});
