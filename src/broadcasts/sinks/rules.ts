/**
 * The caption sinks a host sets on a broadcast (PUT /api/v1/broadcasts/{id}/caption-sinks),
 * checked by hand as the broadcast's other settings are: each failure a 422
 * validation_failed with `details.field` naming the sink and member (`caption_sinks[1].url`).
 */
import { validateWebhookUrl } from '../../keys/service.js';
import { normalizeLanguage } from '../../languages.js';
import { forbiddenHostReason } from '../../webhooks/ssrf.js';
import { invalid } from '../rules.js';
import { SINK_KINDS, type SinkKind } from './protocol.js';

/** Sinks per broadcast: a few platforms at once (e.g. YouTube in two languages and a Zoom meeting). */
export const MAX_SINKS = 5;
export const LINE_LENGTH = { min: 10, max: 200 } as const;
const REGION = /^[A-Za-z0-9_.#-]{1,64}$/;
const FIELDS = new Set(['type', 'url', 'language', 'region', 'line_length']);

export interface SinkInput {
  kind: SinkKind;
  url: string;
  /** A translation language of the broadcast, or null for the source text. */
  language: string | null;
  region: string | null;
  lineLength: number | null;
}

export interface SinkRuleContext {
  translationLanguages: readonly string[];
  /** The webhook URL policy: private, loopback and link-local targets only when it allows them (tests, closed networks). */
  allowPrivate: boolean;
}

/** `{caption_sinks: [...]}` -> the sinks, in order; [] removes every sink. */
export function parseSinks(body: unknown, ctx: SinkRuleContext): SinkInput[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('body', 'The body must be {"caption_sinks": [...]}.');
  const list = (body as Record<string, unknown>).caption_sinks;
  const extra = Object.keys(body).find((k) => k !== 'caption_sinks');
  if (extra) throw invalid(extra, `Unknown field ${extra}.`);
  if (!Array.isArray(list)) throw invalid('caption_sinks', 'caption_sinks must be an array of sinks ([] removes them all).');
  if (list.length > MAX_SINKS)
    throw invalid('caption_sinks', `At most ${MAX_SINKS} caption sinks.`, { max: MAX_SINKS, actual: list.length });
  const out = list.map((item, i) => parseSink(item, `caption_sinks[${i}]`, ctx));
  out.forEach((s, i) => {
    if (out.findIndex((o) => o.kind === s.kind && o.url === s.url && o.language === s.language) !== i) {
      throw invalid(`caption_sinks[${i}]`, 'This sink is listed twice (same type, url and language).');
    }
  });
  return out;
}

function parseSink(item: unknown, at: string, ctx: SinkRuleContext): SinkInput {
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    throw invalid(at, `${at} must be an object {type, url, language?}.`);
  const s = item as Record<string, unknown>;
  const unknown = Object.keys(s).find((k) => !FIELDS.has(k));
  if (unknown) throw invalid(`${at}.${unknown}`, `Unknown field ${unknown}.`);
  if (!SINK_KINDS.includes(s.type as SinkKind)) {
    throw invalid(`${at}.type`, `type must be one of ${SINK_KINDS.join(', ')}.`, { valid_values: SINK_KINDS });
  }
  const kind = s.type as SinkKind;
  if (typeof s.url !== 'string') throw invalid(`${at}.url`, 'url must be the caption URL the platform gave (http or https).');
  const url = validateWebhookUrl(s.url.trim(), `${at}.url`);
  if (!ctx.allowPrivate && forbiddenHostReason(new URL(url).hostname)) {
    throw invalid(`${at}.url`, 'url must name a public address (private, loopback and link-local addresses are refused).');
  }
  let language: string | null = null;
  if (s.language !== undefined && s.language !== null) {
    const tag = typeof s.language === 'string' ? normalizeLanguage(s.language) : null;
    if (!tag || !ctx.translationLanguages.includes(tag)) {
      throw invalid(`${at}.language`, 'language must be one of the translation languages (omit it or null for the source text).', {
        valid_values: ctx.translationLanguages,
      });
    }
    language = tag;
  }
  let region: string | null = null;
  if (s.region !== undefined && s.region !== null) {
    if (kind !== 'youtube') throw invalid(`${at}.region`, 'region applies to YouTube sinks only.');
    if (typeof s.region !== 'string' || !REGION.test(s.region)) {
      throw invalid(`${at}.region`, 'region is up to 64 letters, digits and _ . # - (e.g. "reg1#cue1").');
    }
    region = s.region;
  }
  let lineLength: number | null = null;
  if (s.line_length !== undefined && s.line_length !== null) {
    const n = s.line_length;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < LINE_LENGTH.min || n > LINE_LENGTH.max) {
      throw invalid(`${at}.line_length`, `line_length is a whole number of characters from ${LINE_LENGTH.min} to ${LINE_LENGTH.max}.`, {
        ...LINE_LENGTH,
      });
    }
    lineLength = n;
  }
  return { kind, url, language, region, lineLength };
}
