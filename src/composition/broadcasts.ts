/**
 * The broadcasts module's ports from the app's backends and engines (src/app.ts builds one
 * module for both sides: viewers, api role, and hosts, realtime role, share its seats).
 */
import type { Logger } from 'pino';
import type { BroadcastsModuleDeps } from '../broadcasts/module.js';
import type { EventBus } from '../bus/types.js';
import type { Config } from '../config.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { PlanService } from '../plans/service.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { Presence } from '../presence/types.js';
import type { Database } from '../store/database.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';
import { synthesizerFor, voicesFor } from '../tts/voice-choice.js';

export interface BroadcastsBackends {
  database: Database;
  bus: EventBus;
  rateLimiter: RateLimiter;
  plans: PlanService;
  summaryTemplates: SummaryTemplateCatalogue;
  engines: EngineRegistry;
  /** The leased counts backend picked beside the bus (src/app.ts). */
  presence: Presence;
  now: () => Date;
  logger: Logger;
}

export function broadcastsDeps(
  config: Config,
  { database, bus, rateLimiter, plans, summaryTemplates, engines, presence, now, logger }: BroadcastsBackends,
): BroadcastsModuleDeps {
  return {
    database,
    bus,
    rateLimiter,
    activePlan: (accountId) => plans.activePlan(accountId),
    templateExists: (slug) => summaryTemplates.getEnabledTemplate(slug) !== null,
    voices: (language) => {
      const voices = voicesFor(engines.enginesOf('tts'), language);
      return voices.length ? voices.map((v) => ({ voice_name: v.voice_name, display_name: v.display_name, gender: v.gender })) : null;
    },
    translate: async (text, from, to) => {
      const t = engines.select({ kind: 'translator', from, to });
      return t.ok ? t.engine.translate(text, { from, to }) : null;
    },
    synthesizer: (language, voice) => synthesizerFor(engines.enginesOf('tts'), language, voice),
    // Catch-up summaries are built-in summaries: the same pick as a template's (PARLEY_SUMMARY_TEMPLATE_ENGINE).
    summarizer: (language) => engines.find({ kind: 'summarizer', language }) ?? null,
    catchUp: {
      intervalMs: config.broadcasts.catchUpIntervalSeconds * 1000,
      minNewChars: config.broadcasts.catchUpMinNewChars,
      maxInputChars: config.broadcasts.catchUpMaxInputChars,
    },
    // As a live start asks (src/realtime/ports.ts); the list is GET /api/v1/languages `live`.
    speech: () => {
      const offered = engines.offeredLanguages().live;
      if (!offered || engines.enginesOf('streaming-stt').length === 0) return null;
      return { serves: (language) => engines.serves({ kind: 'streaming-stt', language, interimResults: true }), offered };
    },
    viewerLimit: config.broadcasts.viewerLimit,
    hostWaitMs: config.broadcasts.hostWaitSeconds * 1000,
    hostLeaseMs: config.broadcasts.hostLeaseSeconds * 1000,
    sinkDelivery: {
      allowPrivate: config.webhooks.allowPrivate,
      attempts: config.broadcasts.sinkAttempts,
      retryBaseMs: config.broadcasts.sinkRetryBaseMs,
      timeoutMs: config.broadcasts.sinkTimeoutMs,
    },
    sourceLimits: {
      channelRateSources: config.broadcasts.channelRateSources,
      wrongPerChannel: config.broadcasts.wrongPasswordsPerChannel,
      seats: { percent: config.broadcasts.sourceSeatPercent, min: config.broadcasts.sourceSeatsMin },
    },
    presence,
    now,
    logger: logger.child({ component: 'broadcasts' }),
  };
}
