/**
 * The edge where session events become client frames: a result's (and a corrected
 * sentence's) start travels as milliseconds in the stream and reaches the owner's WebSocket,
 * the floating subtitles and the REST answer as the spec's mm:ss `start_time` (fields in their
 * order, no `start_ms`); an older node's event (mm:ss only) reads the same; sentence errors are
 * for the other audiences, never the owner's frames, and never retained for late joiners or a
 * resumed owner's gap.
 */
import { describe, expect, it } from 'vitest';
import { correctedEvent } from '../../src/corrections/rules.js';
import { ownerMessage } from '../../src/realtime/protocol.js';
import { isTransient, type ResultOrigin, type SentenceCorrected, startMsOf } from '../../src/stream/events.js';
import { sentenceError } from '../../src/stream/sentence-errors.js';
import { clock, wireCorrected, wireOrigin } from '../../src/stream/wire.js';
import { toSubtitleEvent } from '../../src/subtitles/events.js';

const origin = (start: { start_ms: number } | { start_time: string }): ResultOrigin => ({
  sid: 3,
  language: 'en',
  text: 'ask not',
  is_final: true,
  speaker_id: null,
  detected_language: null,
  ...start,
  end_ms: 75_000,
});

describe('session events at the client edge', () => {
  it('formats a start in ms as mm:ss in place, for the owner frame', () => {
    expect(clock(0)).toBe('00:00');
    expect(clock(61_999)).toBe('01:01');
    expect(clock(6_000_000)).toBe('100:00');
    const frame = JSON.parse(ownerMessage({ event: 'result', data: { origin: origin({ start_ms: 72_640 }) } })!);
    expect(frame).toEqual({
      type: 'voice-translation',
      data: {
        action: 'result',
        origin: {
          sid: 3,
          language: 'en',
          text: 'ask not',
          is_final: true,
          speaker_id: null,
          detected_language: null,
          start_time: '01:12',
          end_ms: 75_000,
        },
      },
    });
    expect(Object.keys(frame.data.origin)).toEqual([
      'sid',
      'language',
      'text',
      'is_final',
      'speaker_id',
      'detected_language',
      'start_time',
      'end_ms',
    ]);
  });

  it('reads an older node event (mm:ss or h:mm:ss only) the same way', () => {
    expect(startMsOf(origin({ start_time: '01:12' }))).toBe(72_000);
    expect(startMsOf(origin({ start_time: '1:00:05' }))).toBe(3_605_000);
    expect(startMsOf(origin({ start_time: 'garbage' }))).toBe(0);
    expect(wireOrigin(origin({ start_time: '01:12' })).start_time).toBe('01:12');
  });

  it('keeps sentence errors away from the owner frames and from replay', () => {
    const e = sentenceError(
      {
        code: 'translation_failed',
        severity: 'error',
        message: 'No translation.',
        context: 'translation',
        details: { translation_language: 'es' },
      },
      7,
    );
    expect(e).toEqual({
      event: 'sentence_error',
      data: {
        sid: 7,
        error_code: 'translation_failed',
        severity: 'error',
        message: 'No translation.',
        context: 'translation',
        translation_language: 'es',
      },
    });
    expect(ownerMessage(e)).toBeNull();
    expect(isTransient(e)).toBe(true);
    expect(isTransient({ event: 'result', data: { origin: origin({ start_ms: 1 }) } })).toBe(false);
    expect(JSON.parse(ownerMessage({ event: 'translation', data: { sid: 3, language: 'es', text: 'x', is_final: true } })!).data).toEqual({
      action: 'translation',
      sid: 3,
      language: 'es',
      text: 'x',
      is_final: true,
    });
  });

  it("carries a corrected sentence's start in ms and shows it as mm:ss, last, to the owner, the subtitles and REST", () => {
    const version = { origin: 'ask not what', translations: { es: 'no preguntes' }, translationErrors: null };
    const inStream = correctedEvent('t-1', { sid: 3, startMs: 72_640, speakerId: null }, 1, 'correction', 'ask not', version);
    expect(inStream.start_ms).toBe(72_640);
    expect(inStream).not.toHaveProperty('start_time');
    const shown = {
      task_id: 't-1',
      sid: 3,
      revision: 1,
      kind: 'correction',
      text: 'ask not what',
      previous_text: 'ask not',
      translations: { es: 'no preguntes' },
      translation_errors: {},
      speaker_id: null,
      start_time: '01:12',
    };
    const owner = JSON.parse(ownerMessage({ event: 'sentence_corrected', data: inStream })!);
    expect(owner).toEqual({ type: 'voice-translation', data: { action: 'sentence_corrected', ...shown } });
    // The JSON is as it was when the stream carried mm:ss: start_time is the last field.
    expect(Object.keys(owner.data)).toEqual(['action', ...Object.keys(shown)]);
    const subtitle = toSubtitleEvent({ event: 'sentence_corrected', data: inStream, seq: 9, task_id: 't-1' });
    expect(subtitle).toEqual({ event: 'sentence_corrected', id: 9, data: shown });
    expect(Object.keys(subtitle!.data)).toEqual(Object.keys(shown));
    expect(wireCorrected(inStream)).toEqual(shown);
    // An older node's event (mm:ss only) reads and shows the same.
    const older = { ...shown, kind: 'correction' } as SentenceCorrected;
    expect(startMsOf(older)).toBe(72_000);
    expect(JSON.parse(ownerMessage({ event: 'sentence_corrected', data: older })!).data).toEqual({
      action: 'sentence_corrected',
      ...shown,
    });
  });
});
