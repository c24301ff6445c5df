/**
 * What the realtime feature needs from other features, as small interfaces, so the
 * WebSocket code can be tested and wired without knowing their internals. The composition
 * root (`src/app.ts`) passes the services in `RealtimeWiring`; `createRealtimePorts` turns
 * them into these ports once.
 */

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { BillingService } from '../billing/service.js';
import type { EventBus } from '../bus/types.js';
import type { CorrectionStore } from '../corrections/store.js';
import type { AudioTools } from '../engines/audio/port.js';
import { translationTargets } from '../engines/offer.js';
import type { EngineRegistry } from '../engines/registry.js';
import { liveDiarizer } from '../engines/streaming/labels.js';
import type { GlossaryLimits } from '../glossary/index.js';
import type { KeyAuthenticator } from '../keys/authenticator.js';
import type { KeyService } from '../keys/service.js';
import type { LimitsCalculator } from '../plans/limits.js';
import { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { summarizeTask } from '../processing/summarize.js';
import { translateTask } from '../processing/translate.js';
import { chargeRetranslation } from '../retranslate/service.js';
import type { BlobStore } from '../storage/types.js';
import type { Database } from '../store/database.js';
import type { SessionStreams } from '../stream/session-streams.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';
import { SESSION_FORCE_END_TOPIC, type TaskReprocessor, type TaskService } from '../tasks/service.js';
import type { TicketService } from '../tickets/service.js';
import { voicesFor } from '../tts/voice-choice.js';
import { segmentPrefix } from './live/segments.js';
import { LiveRecordingStore } from './live/store.js';
import { planFeatures } from './plan-features.js';
import type { RecordingDeps } from './recording.js';
import type { RecoveryDeps } from './recover.js';
import type { EngineQuery, StartRequest } from './start.js';

export type TicketOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'ticket_invalid' | 'ticket_expired' | 'ticket_already_used' };

export interface RealtimePorts {
  /** Atomic single use (the ticket is deleted by this call whatever the outcome). */
  consumeTicket(ticket: string): Promise<TicketOutcome>;
  /** The key checks that apply again on the WebSocket: throws the spec's auth_* AppError. */
  checkKey(principal: Principal, ip: string): Promise<void>;
  /** What the engines here serve (start validation). */
  engines: EngineQuery;
  /**
   * Plan and credit checks before a recording starts (nothing is charged): throws
   * daily_limit_reached, too_many_languages, concurrency_limit_reached or
   * auth_quota_exceeded (details.remaining_budget, details.budget_scope).
   */
  admit(principal: Principal, start: StartRequest): Promise<void>;
  /** add_channel: throws plan_feature_not_allowed (details.field max_stt_streams) when `streams` exceed the plan. */
  assertSttStreams(principal: Principal, streams: number): Promise<void>;
  /** What a recording needs (task service, engines, blobs, temp dir, ffmpeg). */
  recording: Omit<RecordingDeps, 'emit' | 'error'>;
  /** Enabled summary templates (start and set_summary check the slug). */
  templates: Pick<SummaryTemplateCatalogue, 'getEnabledTemplate' | 'list'>;
  /** Glossary limits of the `config` action (PARLEY_GLOSSARY_*). */
  glossaryLimits: GlossaryLimits;
  /**
   * The charge of a `retranslate` action (usage type `retranslate`, src/retranslate): all
   * finals (`sids` null) at the full-text price per language, else per sentence; throws
   * plan_feature_not_allowed, auth_insufficient_credit or auth_quota_exceeded. `refund` gives
   * it back when no sentence could be translated.
   */
  retranslation: {
    charge(principal: Principal, taskId: string, sids: readonly number[] | null, languages: number): Promise<string>;
    refund(usageId: string): Promise<void>;
  };
  /** Revisions of corrected sentences (correct_sentence, undo_correction: correction-actions.ts). */
  corrections: CorrectionStore;
  /** Renames the task of a running recording (set_name). */
  renameTask(principal: Principal, taskId: string, name: string): Promise<void>;
  /** Recovery of a dead process's recordings (recover.ts) and after how long a process counts as dead. */
  recovery: RecoveryDeps & { staleMs: number };
  /** This process in the fleet's live recordings (src/realtime/live): its id, the rows, the bus for hand-overs. */
  live: { instanceId: string; store: LiveRecordingStore; bus: EventBus; leaseMs: number };
  /** Audiences a host's `start` brings (broadcasts, wired by src/app.ts); absent: `start` of type broadcast is refused. */
  audiences?: HostedAudiences;
  /** Subscribes to force-fail of live tasks (the task service publishes before it fails the task); resolves once live. */
  onForceEnd(handler: (taskId: string) => void): Promise<() => void>;
  /** Throws plan_feature_not_allowed when the principal's plan lacks `feature` (a feature turned on mid-session). */
  assertPlanFeature(principal: Principal, feature: string, field: string): Promise<void>;
}

import type { HostedAudiences } from './audiences.js';

export type { AudienceSession, HostedAudience, HostedAudiences, PreparedAudience } from './audiences.js';

export function engineQueryOf(registry: EngineRegistry): EngineQuery {
  return {
    // What GET /api/v1/languages lists for live sessions (src/engines/offer.ts).
    transcriptionLanguages: () => [...(registry.offeredLanguages().live ?? [])],
    // As the recording asks (recording.ts): live captions need interim results.
    servesTranscription: (language) => registry.serves({ kind: 'streaming-stt', language, interimResults: true }),
    streamingRefusal: (need) => {
      const s = registry.select({ kind: 'streaming-stt', ...need });
      if (s.ok) return null;
      // A recognizer without diarization of its own, with a live diarizer beside it (recording.ts).
      if (need.diarization && registry.select({ kind: 'streaming-stt', ...need, diarization: false }).ok && liveDiarizer(registry))
        return null;
      return s.refusal;
    },
    translationTargets: (from) => translationTargets(registry, from),
    servesTranslation: (from, to) => registry.serves({ kind: 'translator', from, to }),
    ttsVoices: (language) => {
      const voices = voicesFor(registry.enginesOf('tts'), language);
      return voices.length ? voices.map((v) => v.voice_name) : null;
    },
  };
}

/** The services the realtime ports are made of (given by the composition root). */
export interface RealtimeWiring {
  settings: { billingMinuteMs: number; recoverAfterSeconds: number; segmentSeconds: number; sttMaxBacklogMs: number; tempDir: string };
  logger: Logger;
  /** live_recordings (src/realtime/live/store.ts). */
  database: Database;
  now: () => Date;
  bus: EventBus;
  /** Live sessions as event streams (src/stream). */
  streams: SessionStreams;
  engines: EngineRegistry;
  blobs: BlobStore;
  /** Live sessions write their task through the task service (its rules apply, e.g. the name). */
  tasks: TaskService;
  /** Recovered recordings are handed to the reprocessing job. */
  reprocessor: TaskReprocessor;
  billing: BillingService;
  limits: LimitsCalculator;
  tickets: TicketService;
  keys: KeyService;
  authenticator: KeyAuthenticator;
  templates: SummaryTemplateCatalogue;
  glossaryLimits: GlossaryLimits;
  /** Decoding and encoding audio (src/engines/audio/port.ts). */
  audio: AudioTools;
  /** Revisions of corrected sentences (built by the composition: src/composition/realtime.ts). */
  corrections: CorrectionStore;
}

export function createRealtimePorts(deps: RealtimeWiring): RealtimePorts {
  const instanceId = randomUUID();
  const store = new LiveRecordingStore(deps.database, deps.now);
  const leaseMs = deps.settings.recoverAfterSeconds * 1000;
  return {
    live: { instanceId, store, bus: deps.bus, leaseMs },
    recording: {
      // 16 kHz s16le mono: 32,000 bytes a second.
      live: { store, instanceId, leaseMs, segmentBytes: deps.settings.segmentSeconds * 32_000 },
      tasks: deps.tasks,
      engines: deps.engines,
      blobs: deps.blobs,
      streams: deps.streams,
      logger: deps.logger.child({ component: 'recording' }),
      tempDir: deps.settings.tempDir,
      maxBacklogMs: deps.settings.sttMaxBacklogMs,
      processing: {
        translate: (taskId, o) => translateTask({ engines: deps.engines, tasks: deps.tasks.store, logger: deps.logger }, taskId, o),
        summarize: (principal, taskId, req, o) =>
          summarizeTask(
            {
              engines: deps.engines,
              tasks: deps.tasks.store,
              billing: deps.billing,
              templates: deps.templates,
              logger: deps.logger,
            },
            principal,
            taskId,
            req,
            o,
          ),
      },
      audio: deps.audio,
      billing: {
        minuteMs: deps.settings.billingMinuteMs,
        startUsage: async (principal, taskId, start) => (await deps.billing.startUsage(principal, { type: usageType(start), taskId })).id,
        chargeMinute: async (principal, usageId, index, start) => {
          if (index > 0) await assertCanContinue(deps, principal, index, start);
          const points = minutePrice(deps, start);
          await exhaustedOnRefusal(deps, principal, deps.billing.charge(usageId, { idempotencyKey: `m${index}`, points, minutes: 1 }));
        },
        endUsage: async (usageId) => {
          await deps.billing.endUsage(usageId);
        },
        refundNoAudio: async (usageId) => {
          await deps.billing.refund(usageId, 'no_audio');
        },
      },
    },
    engines: engineQueryOf(deps.engines),
    templates: deps.templates,
    recovery: {
      tasks: deps.tasks,
      reprocessor: deps.reprocessor,
      blobs: deps.blobs,
      audio: deps.audio,
      endUsage: async (usageId) => {
        await deps.billing.endUsage(usageId);
      },
      refundNoAudio: async (usageId) => {
        await deps.billing.refund(usageId, 'no_audio');
      },
      logger: deps.logger.child({ component: 'recording-recovery' }),
      staleMs: leaseMs,
      // A recording of this data folder's gone process: recovered here unless another process holds it (resumed it, or finishes it).
      live: {
        claim: async (taskId, holder) => {
          if (await store.claimFromGoneHolder(taskId, holder, instanceId, leaseMs)) {
            return { status: 'claimed', storedBytes: (await store.get(taskId))?.bytes ?? 0 };
          }
          const row = await store.get(taskId);
          if (!row) return { status: 'none' };
          // Resumed elsewhere (live under another holder) or finished: that process has the recording.
          // Parked (a resume may still take it) or being recovered by another pass: the files stay.
          return { status: row.state === 'parked' || row.state === 'recovering' ? 'busy' : 'taken' };
        },
        done: async (taskId) => {
          await store.end(taskId, 'grace_expired');
          await deps.blobs.deletePrefix(segmentPrefix(taskId));
        },
      },
    },
    glossaryLimits: deps.glossaryLimits,
    retranslation: {
      charge: async (principal, taskId, sids, languages) =>
        (await chargeRetranslation(deps.billing, principal, { taskId, sentences: sids === null ? 'all' : sids.length, languages })).usageId,
      refund: async (usageId) => {
        await deps.billing.refund(usageId, 'failed');
      },
    },
    corrections: deps.corrections,
    async renameTask(principal, taskId, name) {
      await deps.tasks.rename(principal, taskId, name);
    },
    onForceEnd(handler) {
      return deps.bus.subscribe(SESSION_FORCE_END_TOPIC, (m) => {
        if (typeof m.task_id === 'string') handler(m.task_id);
      });
    },
    async admit(principal, start) {
      const standing = await deps.billing.standing(principal);
      // Plan-bound unlimited plans list what they include (start rejected, connection kept).
      for (const { feature, field } of planFeatures(start)) PlanService.assertFeature(standing.plan, feature, field);
      if (start.summary) PlanService.assertFeature(standing.plan, 'summary', 'summary_template');
      if (start.channels) PlanService.assertSttStreams(standing.plan, start.channels.length);
      await deps.limits.assertCanStart(
        principal,
        standing.plan,
        standing.policy,
        { transport: 'websocket', session: true, transcriptionLanguages: start.transcriptionLanguages.length },
        deps.now(),
      );
      // The first minute is charged at start, so one minute must be affordable (broadcasts: in points, always).
      const minute = minutePrice(deps, start);
      await exhaustedOnRefusal(deps, principal, deps.billing.assertCanAfford(principal, minute, standing, usageType(start)));
    },
    async assertSttStreams(principal, streams) {
      PlanService.assertSttStreams((await deps.billing.standing(principal)).plan, streams);
    },
    async consumeTicket(ticket) {
      const r = await deps.tickets.consumeTicket(ticket);
      return r.ok ? { ok: true, principal: { accountId: r.accountId, keyId: r.keyId } } : r;
    },
    async assertPlanFeature(principal, feature, field) {
      PlanService.assertFeature((await deps.billing.standing(principal)).plan, feature, field);
    },
    async checkKey(principal, ip) {
      const store = deps.keys.store;
      const key = await store.getKey(principal.keyId);
      const account = await store.findAccount(principal.accountId);
      if (!key || !account) throw new AppError('auth_invalid_api_key');
      deps.authenticator.check({ ...key, account_blocked: account.blocked, account_user_disabled: account.user_disabled }, ip);
    },
  };
}

/** Usage rows of live sessions: `broadcast` for broadcasts (always paid in points), else `recording`. */
function usageType(start: StartRequest): 'broadcast' | 'recording' {
  return start.type === 'broadcast' ? 'broadcast' : 'recording';
}

function minutePrice(deps: Pick<RealtimeWiring, 'billing'>, start: StartRequest): number {
  const translationLanguages = start.realtimeTranslation ? start.translationLanguages.length : 0;
  return start.type === 'broadcast'
    ? deps.billing.prices.broadcastMinute({ translationLanguages })
    : deps.billing.prices.recordingMinute({ translationLanguages });
}

/**
 * Before each further minute of a running recording: the plan's hard limits (daily, rolling,
 * total) end it with daily_limit_reached; the daily soft limit and max_session_minutes end it
 * with daily_limit_disconnect (a new start is allowed at once). Only plan-bound unlimited
 * plans have such limits; the one limits calculator answers.
 */
async function assertCanContinue(
  deps: Pick<RealtimeWiring, 'billing' | 'limits' | 'now'>,
  principal: Principal,
  minutesUsed: number,
  start: StartRequest,
): Promise<void> {
  const standing = await deps.billing.standing(principal);
  if (standing.plan.mode !== 'unlimited-plan') return;
  // The plan changed under the recording and lost a feature it uses: the recording stops.
  for (const { feature, field } of planFeatures(start)) {
    try {
      PlanService.assertFeature(standing.plan, feature, field);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      throw new AppError('plan_feature_not_allowed', {
        message: `The plan no longer includes ${feature}; the recording was stopped.`,
        details: { ...err.details, minute: minutesUsed },
      });
    }
  }
  const report = await deps.limits.evaluate(principal.accountId, standing.plan, deps.now(), standing.policy);
  if (report.blocked) {
    throw new AppError('daily_limit_reached', {
      details: { limit: report.blocked, restriction_recovery_at: report.view.restriction_recovery_at },
    });
  }
  if (report.dailySoftReached) {
    throw new AppError('daily_limit_disconnect', {
      details: { limit: 'daily_soft_limit_minutes', daily_used_minutes: report.view.daily_used_minutes },
    });
  }
  const max = report.view.max_session_minutes;
  if (max !== null && minutesUsed >= max) {
    throw new AppError('daily_limit_disconnect', {
      message: `A session may last at most ${max} minutes; the recording was stopped.`,
      details: { limit: 'max_session_minutes', max_session_minutes: max },
    });
  }
}

/**
 * credit.exhausted also goes out when a recording cannot start or continue for lack of credit
 * (spec webhooks table); not for a key's own monthly limit, which leaves the account's credit.
 */
async function exhaustedOnRefusal<T>(
  deps: Pick<RealtimeWiring, 'billing' | 'logger'>,
  principal: Principal,
  charge: Promise<T>,
): Promise<T> {
  try {
    return await charge;
  } catch (err) {
    if (err instanceof AppError && err.code === 'auth_quota_exceeded' && err.details?.budget_scope !== 'key_monthly_limit') {
      await deps.billing
        .notifyExhausted(principal.accountId)
        .catch((e: unknown) => deps.logger.error({ err: e }, 'credit.exhausted failed'));
    }
    throw err;
  }
}
