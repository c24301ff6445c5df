/**
 * What the realtime feature needs from other features, as small interfaces, so the
 * WebSocket code can be tested and wired without knowing their internals. `src/app.ts`
 * builds these over the tickets and keys services (see `realtimePortsOf`).
 */

import { join } from 'node:path';
import type { AppDeps } from '../app.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { tasksOf } from '../tasks/module.js';
import type { RecordingDeps } from './recording.js';
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
}

export function engineQueryOf(registry: EngineRegistry): EngineQuery {
  return {
    transcriptionLanguages: () => registry.languagesFor('streaming-stt').sort(),
    servesTranscription: (l) => registry.streamingRecognizer(l) !== undefined,
    translationTargets: (from) =>
      [
        ...new Set(
          registry
            .translationPairs()
            .filter(([f]) => f === from)
            .map(([, t]) => t),
        ),
      ].sort(),
    servesTranslation: (from, to) => registry.translator(from, to) !== undefined,
  };
}

export function realtimePortsOf(deps: AppDeps): RealtimePorts {
  return {
    recording: {
      tasks: tasksOf(deps).store,
      outcomes: tasksOf(deps).tasks,
      engines: deps.engines,
      blobs: deps.blobs,
      logger: deps.logger.child({ component: 'recording' }),
      tempDir: join(deps.config.platform.dataDir, 'tmp', 'realtime'),
      ffmpegPath: deps.config.engines.ffmpegPath,
      billing: {
        minuteMs: deps.config.realtime.billingMinuteMs,
        startUsage: async (principal, taskId) => (await deps.billing.startUsage(principal, { type: 'recording', taskId })).id,
        chargeMinute: async (usageId, index, start) => {
          const points = deps.billing.prices.recordingMinute({
            translationLanguages: start.realtimeTranslation ? start.translationLanguages.length : 0,
          });
          await deps.billing.charge(usageId, { idempotencyKey: `m${index}`, points, minutes: 1 });
        },
        endUsage: async (usageId) => {
          await deps.billing.endUsage(usageId);
        },
      },
    },
    engines: engineQueryOf(deps.engines),
    async admit(principal, start) {
      const standing = await deps.billing.standing(principal);
      await deps.limits.assertCanStart(
        principal,
        standing.plan,
        standing.policy,
        { transport: 'websocket', session: true, transcriptionLanguages: start.transcriptionLanguages.length },
        deps.now(),
      );
      // The first minute is charged at start, so one minute must be affordable.
      const minute = deps.billing.prices.recordingMinute({
        translationLanguages: start.realtimeTranslation ? start.translationLanguages.length : 0,
      });
      await deps.billing.assertCanAfford(principal, minute, standing);
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
