/**
 * Plan settings: the plan catalogue (named plan-bound unlimited plans) and the rolling
 * window of `rolling_limit_minutes`. The day boundary of daily limits is PARLEY_TIME_ZONE
 * (platform section).
 */
import { defineSection, SettingError, settings } from '../platform/config/settings.js';
import { type PlanCatalogue, parseCatalogue } from './catalogue.js';

export const planSettings = defineSection({
  catalogue: settings.custom<PlanCatalogue | null>(
    'PARLEY_PLANS',
    'Plan catalogue as JSON: {"<name>": {"features": {...}, "oneoff_features": {...}, "limits": {...}}}. features: transcribe, translation, multi_speaker, multi_language, multi_channel, tts, floating_subtitles (default: the plan\'s translation value), broadcast (always false); oneoff_features: summary, retranslate, import; an unknown name stops the start. Entries replace the default plans of the same name (trial, standard, pro); see docs/billing.md "Plans".',
    null,
    (raw) => {
      try {
        return parseCatalogue(JSON.parse(raw));
      } catch (err) {
        throw new SettingError(`PARLEY_PLANS is not a valid plan catalogue: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  ),
  rollingWindowDays: settings.int('PARLEY_PLAN_ROLLING_WINDOW_DAYS', 'Length of the rolling window of rolling_limit_minutes, in days.', 7, {
    min: 1,
    max: 366,
  }),
});
