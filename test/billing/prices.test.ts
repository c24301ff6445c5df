import { describe, expect, it } from 'vitest';
import { Prices } from '../../src/billing/prices.js';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('price table', () => {
  it('defaults: recording, translation per language, diarization, TTS, broadcast, import and one-offs', () => {
    const prices = new Prices(loadConfig({}).billing);
    expect(prices.recordingMinute()).toBe(1);
    expect(prices.recordingMinute({ translationLanguages: 2, diarization: true, tts: true })).toBe(3);
    expect(prices.broadcastMinute({ translationLanguages: 3 })).toBe(3.5);
    // Imports bill whole minutes, rounded up, at least one.
    expect(prices.importCost(61_000)).toBe(2);
    expect(prices.importCost(1_000, { translationLanguages: 1, diarization: true })).toBe(2);
    expect(prices.importEstimate(10 * 60_000 + 1)).toBe(11);
    // The whole import part by part (check-quota's estimate): the import charge plus the summary.
    expect(prices.importBreakdown(61_000, { translationLanguages: 3, diarization: true, summary: true })).toEqual({
      recognition: 2,
      translation: 3,
      diarization: 1,
      summary: 5,
      total: 11,
    });
    expect(prices.importCost(61_000, { translationLanguages: 3, diarization: true })).toBe(6);
    expect(prices.oneOff('summary')).toBe(5);
    expect(prices.oneOff('retranslate', 3)).toBe(9);
    expect(prices.oneOff('summary_translate', 2)).toBe(2);
  });

  it('every price is a setting', () => {
    const prices = new Prices(
      loadConfig({ PARLEY_PRICE_RECORDING_PER_MIN: '0.25', PARLEY_PRICE_TRANSLATION_PER_MIN_PER_LANG: '0.125', PARLEY_PRICE_SUMMARY: '2' })
        .billing,
    );
    expect(prices.recordingMinute({ translationLanguages: 2 })).toBe(0.5);
    expect(prices.oneOff('summary')).toBe(2);
  });

  it('rejects bad prices and a bad plan catalogue at start with a clear message', () => {
    expect(() => loadConfig({ PARLEY_PRICE_IMPORT_PER_MIN: '-1' })).toThrow(/PARLEY_PRICE_IMPORT_PER_MIN must be >= 0/);
    expect(() => loadConfig({ PARLEY_PLANS: '{"x": {"limits": {"daily_hard_limit_minutes": 1.5}}}' })).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_PLANS: 'not json' })).toThrow(/PARLEY_PLANS is not a valid plan catalogue/);
    // A misspelt feature would silently leave it out: refused, naming the known ones.
    expect(() => loadConfig({ PARLEY_PLANS: '{"x": {"features": {"floating_subtitle": false}}}' })).toThrow(
      /x\.features\.floating_subtitle is not a feature \(known: .*floating_subtitles/,
    );
    expect(() => loadConfig({ PARLEY_PLANS: '{"x": {"features": {"floating_subtitles": "no"}}}' })).toThrow(/must be true or false/);
    expect(() => loadConfig({ PARLEY_PLAN_ROLLING_WINDOW_DAYS: '0' })).toThrow(/PARLEY_PLAN_ROLLING_WINDOW_DAYS/);
  });
});
