/**
 * The meter of one live recording: its usage row and per-minute charges. Minute 0 is charged
 * at start (a start whose first minute is not covered is refused); minute n once the audio
 * reaches n billing minutes, each after the plan's running limits were asked. A minute that
 * cannot be charged ends the recording: the client gets the error, the owner `mustEnd`.
 * Its share of the fleet snapshot: the minutes charged (charges are idempotent per minute
 * index, so a minute charged before a move is never charged again after it).
 */
import type { Logger } from 'pino';
import type { Principal } from '../../platform/auth/types.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { RecordingSnapshot } from '../live/snapshot.js';
import type { StartRequest } from '../start.js';

/** Per-minute billing of live audio (billing service and the plan's limits calculator). */
export interface MeterBilling {
  minuteMs: number;
  startUsage(principal: Principal, taskId: string, start: StartRequest): Promise<string>;
  /**
   * Charges minute `index`. Before a minute after the first, the plan's running limits are
   * asked: throws daily_limit_disconnect / daily_limit_reached when the recording must end,
   * auth_quota_exceeded when the budget cannot cover the minute.
   */
  chargeMinute(principal: Principal, usageId: string, index: number, start: StartRequest): Promise<void>;
  endUsage(usageId: string): Promise<void>;
  /** A recording that received no audio is not charged: every charge back to its lot. */
  refundNoAudio(usageId: string): Promise<void>;
}

export type MeterSnapshot = Pick<RecordingSnapshot, 'minutesCharged'>;

export interface MeterDeps {
  billing: MeterBilling;
  logger: Logger;
  /** Sends an error to the owner's client. */
  error(err: AppError): void;
  /** Credit or a plan limit ended the recording (after the client was told). */
  mustEnd(err: AppError): void;
}

/** Codes of a plan limit: told as they are (with the minute); anything else is the credit running out. */
const LIMIT_CODES = new Set(['daily_limit_disconnect', 'daily_limit_reached', 'plan_feature_not_allowed']);

export class Meter {
  /** The usage row ('' until begin() or restore()). */
  usageId = '';
  private charged = 0;
  private charging: Promise<void> | null = null;

  constructor(
    private readonly d: MeterDeps,
    private readonly principal: Principal,
    private readonly start: StartRequest,
  ) {}

  /** Minutes charged so far (the next one to charge is this index). */
  get minutes(): number {
    return this.charged;
  }

  /** Opens the usage row and charges minute 0; throws when that minute is not covered. */
  async begin(taskId: string): Promise<void> {
    this.usageId = await this.d.billing.startUsage(this.principal, taskId, this.start);
    await this.d.billing.chargeMinute(this.principal, this.usageId, 0, this.start);
    this.charged = 1;
  }

  /** A recording continued here: its usage row and the minutes its earlier holders charged. */
  restore(usageId: string, snap: MeterSnapshot): void {
    this.usageId = usageId;
    this.charged = snap.minutesCharged;
  }

  /** The recording now holds `durationMs` of audio: the next minute is charged once it is reached. */
  heard(durationMs: number): void {
    if (durationMs >= this.charged * this.d.billing.minuteMs && !this.charging) this.chargeNext();
  }

  private chargeNext(): void {
    const index = this.charged++;
    this.charging = this.d.billing
      .chargeMinute(this.principal, this.usageId, index, this.start)
      .catch((err) => {
        this.d.logger.info({ err: (err as Error).message, minute: index }, 'minute not started');
        const end =
          err instanceof AppError && LIMIT_CODES.has(err.code)
            ? new AppError(err.code, { variant: 'websocket', message: err.message, details: { ...err.details, minute: index } })
            : new AppError('stt_quota_exceeded', { variant: 'websocket', details: { minute: index } });
        this.d.error(end);
        this.d.mustEnd(end);
      })
      .finally(() => {
        this.charging = null;
      });
  }

  /** Resolves once the charge in progress (if any) has settled. */
  async settle(): Promise<void> {
    await this.charging;
  }

  /** Ends the usage row; `refund`: nothing was recorded (spec: no_audio failure with a refund). */
  async close(refund: boolean): Promise<void> {
    if (!this.usageId) return;
    try {
      await this.d.billing.endUsage(this.usageId);
      if (refund) await this.d.billing.refundNoAudio(this.usageId);
    } catch (err) {
      this.d.logger.error({ err, usage_id: this.usageId }, 'closing the usage row failed');
    }
  }

  snapshot(): MeterSnapshot {
    return { minutesCharged: this.charged };
  }
}
