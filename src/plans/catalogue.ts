/**
 * Plan definitions. A plan-bound unlimited authorization names one of these: which
 * per-minute features and one-off features it includes, and its limits (minutes; null means
 * unrestricted). Broadcasts are never part of an unlimited plan (spec: "Unlimited-plan keys
 * cannot use broadcasts"), so `broadcast` is always false whatever the catalogue says.
 *
 * The default catalogue below can be replaced or extended with PARLEY_PLANS (JSON, same
 * field names as the `limits` of GET /api/v1/me/plan without the used/recovery members).
 */

export const MINUTE_FEATURES = {
  transcribe: 'Transcription',
  translation: 'Real-time translation',
  multi_speaker: 'Multi-speaker recognition',
  multi_language: 'Multi-language recognition',
  multi_channel: 'Multi-channel recognition',
  tts: 'Text to speech',
  /** The audience window of a live recording (owner feed tokens, shares, the public exchange). */
  floating_subtitles: 'Floating subtitles',
  broadcast: 'Broadcast',
} as const;

export const ONEOFF_FEATURES = {
  summary: 'Summary',
  retranslate: 'Full-text retranslation',
  import: 'File import',
} as const;

export type MinuteFeature = keyof typeof MINUTE_FEATURES;
export type OneoffFeature = keyof typeof ONEOFF_FEATURES;

export interface PlanLimits {
  daily_soft_limit_minutes: number | null;
  daily_hard_limit_minutes: number | null;
  max_concurrent_sessions: number | null;
  max_transcription_languages: number | null;
  max_session_minutes: number | null;
  /** Minutes allowed within the rolling window (PARLEY_PLAN_ROLLING_WINDOW_DAYS, default 7 days). */
  rolling_limit_minutes: number | null;
  /** Minutes allowed in total since the plan was granted. */
  auth_total_limit_minutes: number | null;
  /** Recognizer streams one live recording may run (multi_channel: one per channel). */
  max_stt_streams: number | null;
}

export interface PlanDefinition {
  name: string;
  features: Record<MinuteFeature, boolean>;
  oneoff_features: Record<OneoffFeature, boolean>;
  limits: PlanLimits;
}

export type PlanCatalogue = Record<string, PlanDefinition>;

const LIMIT_KEYS: (keyof PlanLimits)[] = [
  'daily_soft_limit_minutes',
  'daily_hard_limit_minutes',
  'max_concurrent_sessions',
  'max_transcription_languages',
  'max_session_minutes',
  'rolling_limit_minutes',
  'auth_total_limit_minutes',
  'max_stt_streams',
];

function plan(name: string, features: MinuteFeature[], oneoff: OneoffFeature[], limits: PlanLimits): PlanDefinition {
  return {
    name,
    features: Object.fromEntries(
      Object.keys(MINUTE_FEATURES).map((f) => [f, f !== 'broadcast' && features.includes(f as MinuteFeature)]),
    ) as Record<MinuteFeature, boolean>,
    oneoff_features: Object.fromEntries(Object.keys(ONEOFF_FEATURES).map((f) => [f, oneoff.includes(f as OneoffFeature)])) as Record<
      OneoffFeature,
      boolean
    >,
    limits,
  };
}

/** The default catalogue (documented in docs/billing.md "Plans"). */
export const DEFAULT_CATALOGUE: PlanCatalogue = {
  trial: plan('trial', ['transcribe', 'translation', 'floating_subtitles'], ['summary'], {
    daily_soft_limit_minutes: 30,
    daily_hard_limit_minutes: 60,
    max_concurrent_sessions: 1,
    max_transcription_languages: 1,
    max_session_minutes: 30,
    rolling_limit_minutes: null,
    auth_total_limit_minutes: 300,
    max_stt_streams: 1,
  }),
  standard: plan(
    'standard',
    ['transcribe', 'translation', 'multi_speaker', 'tts', 'floating_subtitles'],
    ['summary', 'retranslate', 'import'],
    {
      daily_soft_limit_minutes: 240,
      daily_hard_limit_minutes: 300,
      max_concurrent_sessions: 2,
      max_transcription_languages: 2,
      max_session_minutes: 180,
      rolling_limit_minutes: 1200,
      auth_total_limit_minutes: null,
      max_stt_streams: 2,
    },
  ),
  pro: plan(
    'pro',
    ['transcribe', 'translation', 'multi_speaker', 'multi_language', 'multi_channel', 'tts', 'floating_subtitles'],
    ['summary', 'retranslate', 'import'],
    {
      daily_soft_limit_minutes: 480,
      daily_hard_limit_minutes: 600,
      max_concurrent_sessions: 5,
      max_transcription_languages: 4,
      max_session_minutes: 480,
      rolling_limit_minutes: 3000,
      auth_total_limit_minutes: null,
      max_stt_streams: 8,
    },
  ),
};

export const DEFAULT_PLAN_NAME = 'standard';

/**
 * Validates a catalogue given as JSON; missing members default to false / null, except
 * `floating_subtitles`, which defaults to the plan's `translation` (floating subtitles were
 * part of real-time translation before they had their own feature, so catalogues written then
 * keep their meaning; `"floating_subtitles": false` is a plan with translation but no subtitle
 * window).
 */
export function parseCatalogue(input: unknown): PlanCatalogue {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('expected an object of plans');
  const out: PlanCatalogue = {};
  for (const [name, raw] of Object.entries(input as Record<string, unknown>)) {
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(name)) throw new Error(`plan name "${name}" must be lowercase letters, digits, - or _`);
    const def = (raw ?? {}) as Record<string, Record<string, unknown> | undefined>;
    for (const [group, known] of [
      ['features', MINUTE_FEATURES],
      ['oneoff_features', ONEOFF_FEATURES],
    ] as const) {
      for (const [k, v] of Object.entries(def[group] ?? {})) {
        if (!(k in known)) throw new Error(`${name}.${group}.${k} is not a feature (known: ${Object.keys(known).join(', ')})`);
        if (typeof v !== 'boolean') throw new Error(`${name}.${group}.${k} must be true or false`);
      }
    }
    const subtitles = def.features?.floating_subtitles ?? def.features?.translation === true;
    const features = Object.keys(MINUTE_FEATURES).filter((f) =>
      f === 'floating_subtitles' ? subtitles === true : def.features?.[f] === true,
    ) as MinuteFeature[];
    const oneoff = Object.keys(ONEOFF_FEATURES).filter((f) => def.oneoff_features?.[f] === true) as OneoffFeature[];
    const limits = {} as PlanLimits;
    for (const k of LIMIT_KEYS) {
      const v = def.limits?.[k];
      if (v !== undefined && v !== null && !(Number.isInteger(v) && (v as number) >= 0)) {
        throw new Error(`${name}.limits.${k} must be a non-negative integer or null`);
      }
      limits[k] = (v as number | undefined) ?? null;
    }
    out[name] = plan(name, features, oneoff, limits);
  }
  return out;
}
