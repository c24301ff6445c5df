/**
 * Billing settings: the price table and the low-credit threshold. The spec leaves point
 * prices open ("not shown"), so every price is a setting with a documented default. Prices
 * are points (decimals allowed; stored as integer milli-points). prices.ts computes costs
 * from these values; nothing else reads them.
 */
import { defineSection, settings } from '../platform/config/settings.js';

const price = (env: string, description: string, defaultValue: number) => settings.number(env, description, defaultValue, { min: 0 });

export const billingSettings = defineSection({
  recordingPerMin: price(
    'PARLEY_PRICE_RECORDING_PER_MIN',
    'Points per minute of live speech recognition (charged at the start of each minute).',
    1,
  ),
  translationPerMinPerLang: price(
    'PARLEY_PRICE_TRANSLATION_PER_MIN_PER_LANG',
    'Points per minute per translation language (live recordings, broadcasts and imports).',
    0.5,
  ),
  diarizationPerMin: price('PARLEY_PRICE_DIARIZATION_PER_MIN', 'Points per minute of speaker diarization (multi_speaker).', 0.5),
  ttsPerMin: price('PARLEY_PRICE_TTS_PER_MIN', 'Points per minute of a live recording with TTS enabled.', 0.5),
  importPerMin: price('PARLEY_PRICE_IMPORT_PER_MIN', 'Points per minute (rounded up) of imported audio for speech recognition.', 1),
  broadcastPerMin: price(
    'PARLEY_PRICE_BROADCAST_PER_MIN',
    'Points per minute of a live broadcast (recognition; translation is added per language).',
    2,
  ),
  summary: price('PARLEY_PRICE_SUMMARY', 'Points per summary produced at the end of a recording or import.', 5),
  regenSummary: price('PARLEY_PRICE_REGEN_SUMMARY', 'Points per regenerated summary.', 5),
  retranslate: price('PARLEY_PRICE_RETRANSLATE', 'Points per full-text retranslation, per target language.', 3),
  retranslateSentence: price(
    'PARLEY_PRICE_RETRANSLATE_SENTENCE',
    'Points per sentence per target language of a single-sentence retranslation (never more than a full-text retranslation).',
    0.1,
  ),
  summaryTranslate: price('PARLEY_PRICE_SUMMARY_TRANSLATE', 'Points per summary translation, per target language.', 1),
  lowThreshold: settings.number(
    'PARLEY_CREDIT_LOW_THRESHOLD',
    'Points below which a charge raises credit.low (once per 24 hours per account, re-armed when credit rises).',
    50,
    { min: 0 },
  ),
});
