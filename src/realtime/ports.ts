/**
 * What the realtime feature needs from other features, as small interfaces, so the
 * WebSocket code can be tested and wired without knowing their internals. `src/app.ts`
 * builds these over the tickets and keys services (see `realtimePortsOf`).
 */

import { join } from 'node:path';
import type { AppDeps } from '../app.js';
import type { BroadcastHostDeps } from '../broadcasts/host-session.js';
import type { EngineRegistry } from '../engines/registry.js';
import { type GlossaryLimits, glossaryLimits } from '../glossary/index.js';
import { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { summarizeTask } from '../processing/summarize.js';
import { translateTask } from '../processing/translate.js';
import type { SummaryTemplateCatalogue } from '../summary-templates/catalogue.js';
import { tasksOf } from '../tasks/module.js';
import { SESSION_FORCE_END_TOPIC } from '../tasks/service.js';
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
  /** What a recording needs (task store, engines, blobs, temp dir, ffmpeg). */
  recording: Omit<RecordingDeps, 'emit' | 'error'>;
  /** Enabled summary templates (start and set_summary check the slug). */
  templates: Pick<SummaryTemplateCatalogue, 'getEnabledTemplate' | 'list'>;
  /** Glossary limits of the `config` action (PARLEY_GLOSSARY_*). */
  glossaryLimits: GlossaryLimits;
  /** Renames the task of a running recording (set_name). */
  renameTask(principal: Principal, taskId: string, name: string): Promise<void>;
  /** Recovery of a dead process's recordings (recover.ts) and after how long a process counts as dead. */
  recovery: RecoveryDeps & { staleMs: number };
  /** Broadcast host sessions (src/broadcasts/host-session.ts); absent: `start` of type broadcast is refused. */
  broadcasts?: BroadcastHostDeps;
  /** Subscribes to force-fail of live tasks (the task service publishes before it fails the task); resolves once live. */
  onForceEnd(handler: (taskId: string) => void): Promise<() => void>;
}

export function engineQueryOf(registry: EngineRegistry): EngineQuery {
  return {
    transcriptionLanguages: () => registry.languagesFor('streaming-stt').sort(),
    // As the recording asks (recording.ts): live captions need interim results.
    servesTranscription: (language) => registry.serves({ kind: 'streaming-stt', language, interimResults: true }),
    streamingRefusal: (need) => {
      const s = registry.select({ kind: 'streaming-stt', ...need });
      return s.ok ? null : s.refusal;
    },
    translationTargets: (from) =>
      [
        ...new Set(
          registry
            .translationPairs()
            .filter(([f]) => f === from)
            .map(([, t]) => t),
        ),
      ].sort(),
    servesTranslation: (from, to) => registry.serves({ kind: 'translator', from, to }),
  };
}

export function realtimePortsOf(deps: AppDeps): RealtimePorts {
  return {
    recording: {
      tasks: tasksOf(deps).store,
      outcomes: tasksOf(deps).tasks,
      engines: deps.engines,
      blobs: deps.blobs,
      streams: deps.streams,
      logger: deps.logger.child({ component: 'recording' }),
      tempDir: join(deps.config.platform.dataDir, 'tmp', 'realtime'),
      processing: {
        translate: (taskId, o) => translateTask({ ...deps, tasks: tasksOf(deps).store }, taskId, o),
        summarize: (principal, taskId, req, o) =>
          summarizeTask(
            {
              engines: deps.engines,
              tasks: tasksOf(deps).store,
              billing: deps.billing,
              templates: deps.summaryTemplates,
              logger: deps.logger,
            },
            principal,
            taskId,
            req,
            o,
          ),
      },
      ffmpegPath: deps.config.engines.ffmpegPath,
      billing: {
        minuteMs: deps.config.realtime.billingMinuteMs,
        startUsage: async (principal, taskId, start) => (await deps.billing.startUsage(principal, { type: usageType(start), taskId })).id,
        chargeMinute: async (principal, usageId, index, start) => {
          if (index > 0) await assertCanContinue(deps, principal, index);
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
    templates: deps.summaryTemplates,
    recovery: {
      tasks: tasksOf(deps).store,
      outcomes: tasksOf(deps).tasks,
      reprocessor: () => tasksOf(deps).tasks.reprocessor,
      blobs: deps.blobs,
      ffmpegPath: deps.config.engines.ffmpegPath,
      endUsage: async (usageId) => {
        await deps.billing.endUsage(usageId);
      },
      refundNoAudio: async (usageId) => {
        await deps.billing.refund(usageId, 'no_audio');
      },
      logger: deps.logger.child({ component: 'recording-recovery' }),
      staleMs: deps.config.realtime.recoverAfterSeconds * 1000,
    },
    glossaryLimits: glossaryLimits(deps.config),
    async renameTask(principal, taskId, name) {
      await tasksOf(deps).store.rename(principal.accountId, taskId, name);
    },
    onForceEnd(handler) {
      return deps.bus.subscribe(SESSION_FORCE_END_TOPIC, (m) => {
        if (typeof m.task_id === 'string') handler(m.task_id);
      });
    },
    async admit(principal, start) {
      const standing = await deps.billing.standing(principal);
      // Plan-bound unlimited plans list what they include (start rejected, connection kept).
      PlanService.assertFeature(standing.plan, start.type === 'broadcast' ? 'broadcast' : 'transcribe', 'type');
      if (start.realtimeTranslation && start.translationLanguages.length)
        PlanService.assertFeature(standing.plan, 'translation', 'translation_languages');
      if (start.summary) PlanService.assertFeature(standing.plan, 'summary', 'summary_template');
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
    async consumeTicket(ticket) {
      const r = await deps.tickets.consumeTicket(ticket);
      return r.ok ? { ok: true, principal: { accountId: r.accountId, keyId: r.keyId } } : r;
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

function minutePrice(deps: AppDeps, start: StartRequest): number {
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
async function assertCanContinue(deps: AppDeps, principal: Principal, minutesUsed: number): Promise<void> {
  const standing = await deps.billing.standing(principal);
  if (standing.plan.mode !== 'unlimited-plan') return;
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
async function exhaustedOnRefusal<T>(deps: AppDeps, principal: Principal, charge: Promise<T>): Promise<T> {
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
