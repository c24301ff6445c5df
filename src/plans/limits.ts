/**
 * The one limits calculator. The ticket endpoint, the import upload/check-quota and the
 * WebSocket start (and its per-minute checks) all ask it, so every place agrees.
 *
 * Definitions (the spec names the members; their meaning is ours, see docs/billing.md "Plans"):
 * - used minutes are billable minutes of charges (recordings, broadcasts, imports), counted
 *   at charge time, refunds excluded; they count under every mode, so an account that
 *   switches to a plan mid-day brings its day's minutes along;
 * - daily_*: the plan day runs from local midnight in PARLEY_TIME_ZONE; the soft limit stops
 *   a running recording (a new start is allowed at once), the hard limit refuses new starts
 *   until the next local midnight;
 * - rolling_limit_minutes: minutes within the last PARLEY_PLAN_ROLLING_WINDOW_DAYS days;
 * - auth_total_limit_minutes: minutes since the plan was granted (no recovery);
 * - max_concurrent_sessions: the smaller of the plan's and the key's cap;
 * - restriction_recovery_at: when the blocking limit frees up again (null when nothing
 *   blocks, or when only the total limit blocks).
 */
import type { KeyPolicy } from '../billing/key-policy.js';
import type { LimitMinutes, LimitMinutesQuery } from '../billing/read-cache.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { PlanLimits } from './catalogue.js';
import { dayBounds } from './day.js';
import type { ActivePlan } from './service.js';

export interface UsageMinutesSource {
  /** The day's, the rolling window's and the plan's total minutes, in one read (cached where that is exact). */
  limitMinutes(accountId: string, query: LimitMinutesQuery, now: Date): Promise<LimitMinutes>;
  minuteTimeline(accountId: string, fromIso: string, toIso: string): Promise<{ at: string; minutes: number }[]>;
}

/** Live sessions of an account and of one key. The billing store counts in-progress usage rows; live sessions may supply their own. */
export interface ActiveSessionCounter {
  liveSessions(accountId: string, keyId: string): Promise<{ account: number; key: number }>;
}

/**
 * The `limits` object of GET /api/v1/me/plan: the interface's eleven members exactly. The
 * plan's stream count (max_stt_streams) is not one of them; it is reported where it refuses
 * something (plan_feature_not_allowed details).
 */
export interface LimitsView extends Omit<PlanLimits, 'max_stt_streams'> {
  daily_used_minutes: number | null;
  rolling_used_minutes: number | null;
  auth_total_used_minutes: number | null;
  restriction_recovery_at: string | null;
}

export type BlockingLimit = 'daily_hard_limit_minutes' | 'rolling_limit_minutes' | 'auth_total_limit_minutes';

export interface LimitsReport {
  view: LimitsView;
  /** The hard limit that refuses new sessions now, if any. */
  blocked: BlockingLimit | null;
  dailySoftReached: boolean;
  /** Minutes a session may still run before a soft, hard, rolling or total limit (null: unbounded). */
  remainingMinutes: number | null;
}

export interface StartCheck {
  /** Transcription languages requested. */
  transcriptionLanguages?: number;
  /** Where the answer goes: REST answers plan_daily_limit_reached (402), WebSocket daily_limit_reached. */
  transport: 'rest' | 'websocket';
  /** Whether a new live session is being opened (concurrency applies). */
  session?: boolean;
}

export const MAX_TRANSCRIPTION_LANGUAGES = 10;

export class LimitsCalculator {
  constructor(
    private readonly deps: {
      minutes: UsageMinutesSource;
      sessions: ActiveSessionCounter;
      timeZone: string;
      rollingWindowDays: number;
    },
  ) {}

  /**
   * Replaces the live-session count (default: in-progress recording/broadcast usage rows).
   * The realtime feature plugs its own registry in, which also knows about sessions that
   * ended with a crash (their usage rows stay in progress until recovered).
   */
  useSessionCounter(sessions: ActiveSessionCounter): void {
    this.deps.sessions = sessions;
  }

  /**
   * The limits of a plan-bound unlimited authorization at `now`. `epoch`: the account's billing
   * epoch read by the request being served (PostgreSQL), so the minute counts may come from the
   * read cache; callers outside one request pass none.
   */
  async evaluate(
    accountId: string,
    plan: Extract<ActivePlan, { mode: 'unlimited-plan' }>,
    now: Date,
    key?: KeyPolicy,
    epoch?: number,
  ): Promise<LimitsReport> {
    const l = plan.plan.limits;
    const nowMs = now.getTime();
    const day = this.day(nowMs);
    const windowMs = this.deps.rollingWindowDays * 86_400_000;
    // One statement for every count a limit needs (the day count is always shown); the
    // per-charge timeline only when the rolling limit blocks and its recovery is needed.
    const sums = await this.deps.minutes.limitMinutes(
      accountId,
      {
        day: [day.startIso, day.endIso],
        rolling: l.rolling_limit_minutes !== null,
        totalFrom: l.auth_total_limit_minutes === null ? null : plan.grantedAt,
        nowMs,
        windowMs,
        epoch,
      },
      now,
    );
    // The same counts (a cached read answers with the very same object), the same plan and
    // key: the same report, which depends on nothing else (the day and the window are part of
    // what the counts were read for).
    const keyMax = key?.maxConcurrentSessions ?? null;
    const known = this.reports.get(sums);
    if (known && known.limits === l && known.keyMax === keyMax) return known.report;
    const report = await this.report(accountId, l, sums, keyMax, nowMs, day.endIso, windowMs);
    this.reports.set(sums, { limits: l, keyMax, report });
    return report;
  }

  private readonly reports = new WeakMap<LimitMinutes, { limits: PlanLimits; keyMax: number | null; report: LimitsReport }>();

  /** The plan day of `nowMs`, its bounds computed once per day (time zone offsets are costly to find). */
  private day(nowMs: number): { startMs: number; endMs: number; startIso: string; endIso: string } {
    const last = this.lastDay;
    if (last && nowMs >= last.startMs && nowMs < last.endMs) return last;
    const { start, end } = dayBounds(new Date(nowMs), this.deps.timeZone);
    this.lastDay = { startMs: start.getTime(), endMs: end.getTime(), startIso: start.toISOString(), endIso: end.toISOString() };
    return this.lastDay;
  }

  private lastDay: { startMs: number; endMs: number; startIso: string; endIso: string } | undefined;

  private async report(
    accountId: string,
    l: PlanLimits,
    sums: LimitMinutes,
    keyMax: number | null,
    nowMs: number,
    dayEndIso: string,
    windowMs: number,
  ): Promise<LimitsReport> {
    const { daily, rolling, total } = sums;
    let blocked: BlockingLimit | null = null;
    let recovery: string | null = null;
    if (l.auth_total_limit_minutes !== null && total !== null && total >= l.auth_total_limit_minutes) {
      blocked = 'auth_total_limit_minutes';
    } else if (l.rolling_limit_minutes !== null && rolling !== null && rolling >= l.rolling_limit_minutes) {
      blocked = 'rolling_limit_minutes';
      recovery = rollingRecovery(
        await this.deps.minutes.minuteTimeline(accountId, new Date(nowMs - windowMs).toISOString(), new Date(nowMs + 1).toISOString()),
        rolling,
        l.rolling_limit_minutes,
        windowMs,
      );
    }
    if (l.daily_hard_limit_minutes !== null && daily >= l.daily_hard_limit_minutes && blocked !== 'auth_total_limit_minutes') {
      const dayRecovery = dayEndIso;
      if (blocked === null || (recovery !== null && dayRecovery > recovery)) {
        blocked = 'daily_hard_limit_minutes';
        recovery = dayRecovery;
      }
    }

    const caps = [
      l.daily_soft_limit_minutes === null ? null : l.daily_soft_limit_minutes - daily,
      l.daily_hard_limit_minutes === null ? null : l.daily_hard_limit_minutes - daily,
      l.rolling_limit_minutes === null ? null : l.rolling_limit_minutes - (rolling ?? 0),
      l.auth_total_limit_minutes === null ? null : l.auth_total_limit_minutes - (total ?? 0),
    ].filter((v): v is number => v !== null);
    const remainingMinutes = caps.length ? Math.max(0, Math.min(...caps)) : null;

    const { max_stt_streams: _streams, ...shown } = l;
    return Object.freeze({
      view: Object.freeze({
        ...shown,
        max_concurrent_sessions: minNullable(l.max_concurrent_sessions, keyMax),
        daily_used_minutes: daily,
        rolling_used_minutes: rolling,
        auth_total_used_minutes: total,
        restriction_recovery_at: recovery,
      }),
      blocked,
      dailySoftReached: l.daily_soft_limit_minutes !== null && daily >= l.daily_soft_limit_minutes,
      remainingMinutes,
    });
  }

  /**
   * Refuses a new start (ticket, import upload, WebSocket start) with the spec's code when a
   * limit stands in the way. Credit mode and unlimited-without-restrictions only have the
   * key's concurrency cap and the global language cap.
   */
  async assertCanStart(principal: Principal, plan: ActivePlan, key: KeyPolicy, check: StartCheck, now: Date): Promise<LimitsReport | null> {
    const report = plan.mode === 'unlimited-plan' ? await this.evaluate(principal.accountId, plan, now, key) : null;
    if (report?.blocked) {
      const details = { limit: report.blocked, restriction_recovery_at: report.view.restriction_recovery_at };
      throw new AppError(check.transport === 'rest' ? 'plan_daily_limit_reached' : 'daily_limit_reached', { details });
    }
    const maxLanguages = minNullable(MAX_TRANSCRIPTION_LANGUAGES, report?.view.max_transcription_languages ?? null) as number;
    if (check.transcriptionLanguages !== undefined && check.transcriptionLanguages > maxLanguages) {
      throw new AppError('too_many_languages', { details: { max: maxLanguages, received: check.transcriptionLanguages } });
    }
    if (check.session) {
      const planCap = plan.mode === 'unlimited-plan' ? plan.plan.limits.max_concurrent_sessions : null;
      if (planCap !== null || key.maxConcurrentSessions !== null) {
        const live = await this.deps.sessions.liveSessions(principal.accountId, principal.keyId);
        if (
          (planCap !== null && live.account >= planCap) ||
          (key.maxConcurrentSessions !== null && live.key >= key.maxConcurrentSessions)
        ) {
          throw new AppError('concurrency_limit_reached', {
            details: { max: minNullable(planCap, key.maxConcurrentSessions), active: planCap !== null ? live.account : live.key },
          });
        }
      }
    }
    return report;
  }
}

/**
 * Minutes a running session may still go on: the report's remaining minutes (soft, hard,
 * rolling and total limits) and the plan's max_session_minutes less what this session used.
 * Null: unbounded. The WebSocket feature calls this at each minute.
 */
export function sessionBudget(report: LimitsReport | null, sessionMinutes: number): number | null {
  if (!report) return null;
  const perSession = report.view.max_session_minutes === null ? null : Math.max(0, report.view.max_session_minutes - sessionMinutes);
  return minNullable(report.remainingMinutes, perSession);
}

function minNullable(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/** The moment enough minutes leave the rolling window for usage to drop below the limit. */
function rollingRecovery(timeline: { at: string; minutes: number }[], used: number, limit: number, windowMs: number): string | null {
  let left = used;
  for (const e of timeline) {
    left -= e.minutes;
    if (left < limit) return new Date(Date.parse(e.at) + windowMs).toISOString();
  }
  return null;
}
