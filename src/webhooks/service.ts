/**
 * The webhook delivery service (spec "Webhooks"). `notify` writes the envelope to the outbox
 * and enqueues a durable job in one go; the worker role sends it, signed afresh on every
 * attempt, and retries on the spec's schedule. A crash loses nothing: the row and the job
 * are in the database, and pending rows without a live job are re-queued when a worker starts.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { JobContext, JobQueue } from '../jobs/types.js';
import { crashPoint } from '../platform/crash-points.js';
import { AppError } from '../platform/errors/app-error.js';
import { fixedSchedule } from '../platform/retry.js';
import type { Executor } from '../store/database.js';
import type { WebhookEvent } from './events.js';
import type { WebhookSender } from './signed-sender.js';
import type { DeliveryRow, WebhookStore } from './store.js';

export const DELIVER_JOB = 'webhook.deliver';
/** Seconds between a failed attempt and the next one (spec rule 8): 5 attempts in all. */
export const RETRY_SCHEDULE_S = [10, 30, 90, 270] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_S.length + 1;

/** Where a key's notifications go; null when the key is deleted or disabled (checked at send time). */
export interface WebhookTargets {
  target(keyId: string): Promise<{ url: string | null; secret: string } | null>;
  /** Active keys of the account that have a webhook URL (credit events go to each); `within` an open transaction. */
  keysWithWebhook(accountId: string, within?: Executor): Promise<{ id: string }[]>;
}

export interface WebhookOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  verifyTimeoutMs: number;
  retryScale: number;
  /** Period of the outbox repair sweep (and the age a pending row must reach before it re-queues it). */
  repairSeconds: number;
}

export interface NotifyInput {
  accountId: string;
  keyId: string;
  /** Request-level callback_url: wins over the key's URL. */
  callbackUrl?: string | null;
  data: object;
  /** One row per source event even when several processes handle it. */
  dedupeKey?: string;
  /** Send only after this delivery's first attempt (ordered events of one outcome). */
  after?: string | null;
}

export class WebhookService {
  constructor(
    private readonly store: WebhookStore,
    private readonly jobs: JobQueue,
    private readonly targets: WebhookTargets,
    private readonly sender: WebhookSender,
    private readonly options: WebhookOptions,
    private readonly logger: Logger,
    private readonly now: () => Date,
  ) {}

  /**
   * Queues one notification; returns its delivery_id (null when the dedupe key was seen before).
   * `within`: the caller's open transaction (the row and its delivery job commit with it).
   */
  async notify(event: Exclude<WebhookEvent, 'webhook.verify'>, input: NotifyInput, within?: Executor): Promise<string | null> {
    const id = randomUUID();
    const now = this.now().toISOString();
    const body = JSON.stringify({ event, timestamp: now, delivery_id: id, data: input.data });
    const inserted = await this.store.insert(
      {
        id,
        account_id: input.accountId,
        key_id: input.keyId,
        event,
        callback_url: input.callbackUrl || null,
        body,
        status: input.after ? 'waiting' : 'pending',
        attempts: 0,
        last_error: null,
        dedupe_key: input.dedupeKey ?? null,
        after_id: input.after ?? null,
        created_at: now,
        updated_at: now,
      },
      within,
    );
    if (!inserted) return null;
    if (input.after) {
      // The predecessor may have been tried already (or be gone): then this one goes now.
      const before = await this.store.get(input.after, within);
      if (!before || before.attempts > 0 || before.status !== 'pending') await this.releaseAfter(input.after, within);
    } else {
      await this.enqueue(id, within);
    }
    return id;
  }

  /**
   * Several notifications of one outcome, sent in this order (spec rule 1: recording.completed
   * then import.completed): each is first tried only after the previous one's first attempt.
   */
  async notifySequence(
    common: Omit<NotifyInput, 'data' | 'after' | 'dedupeKey'>,
    items: { event: Exclude<WebhookEvent, 'webhook.verify'>; data: object; dedupeKey?: string }[],
    within?: Executor,
  ): Promise<string[]> {
    const ids: string[] = [];
    let after: string | null = null;
    for (const item of items) {
      const id: string | null = await this.notify(item.event, { ...common, data: item.data, after, dedupeKey: item.dedupeKey }, within);
      if (id) ids.push(id);
      after = id;
    }
    return ids;
  }

  private async enqueue(id: string, within?: Executor): Promise<void> {
    await this.jobs.enqueue(DELIVER_JOB, { deliveryId: id }, { maxAttempts: MAX_ATTEMPTS, dedupeKey: `webhook:${id}`, within });
  }

  private async releaseAfter(afterId: string, within?: Executor): Promise<void> {
    for (const id of await this.store.release(afterId, this.now(), within)) await this.enqueue(id, within);
  }

  /**
   * Credit events go to every active key with a URL, one copy each, never to a callback_url.
   * `within`: the transaction that records the crossing (credit-notices.ts).
   */
  async notifyAccount(
    event: 'credit.low' | 'credit.exhausted',
    accountId: string,
    data: object,
    sourceKey: string,
    within?: Executor,
  ): Promise<number> {
    const keys = await this.targets.keysWithWebhook(accountId, within);
    let n = 0;
    for (const key of keys) {
      if (await this.notify(event, { accountId, keyId: key.id, data, dedupeKey: `${sourceKey}:${key.id}` }, within)) n++;
    }
    return n;
  }

  /** Support's resend (spec: failed notifications are re-sent only on request): one more attempt, same delivery_id. */
  async resend(deliveryId: string): Promise<DeliveryRow> {
    const row = await this.store.get(deliveryId);
    if (!row) throw new AppError('validation_failed', { message: `No webhook delivery ${deliveryId}.`, details: { field: 'delivery' } });
    await this.store.setStatus(row.id, 'pending', row.last_error, this.now());
    await this.jobs.enqueue(DELIVER_JOB, { deliveryId: row.id, resend: true }, { maxAttempts: 1, dedupeKey: `webhook:${row.id}` });
    return { ...row, status: 'pending' };
  }

  /**
   * Registers the delivery worker (worker role) and repairs the outbox now and then every
   * `repairSeconds` (see repairOutbox). Returns the function that stops the sweep.
   */
  async startWorker(concurrency = 4): Promise<() => void> {
    const scale = this.options.retryScale;
    this.jobs.work<{ deliveryId: string; resend?: boolean }>(DELIVER_JOB, (p, ctx) => this.deliver(p.deliveryId, ctx, !!p.resend), {
      concurrency,
      // The spec fixes the schedule, so no jitter and no Retry-After here.
      backoffMs: fixedSchedule(RETRY_SCHEDULE_S.map((s) => Math.round(s * 1000 * scale))),
    });
    await this.repairOutbox(true);
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      this.repairOutbox(false)
        .catch((err: unknown) => this.logger.error({ err }, 'webhook outbox repair failed'))
        .finally(() => {
          running = false;
        });
    }, this.options.repairSeconds * 1000);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Pending notifications without a live delivery job get one (a job lost with a Redis flush,
   * an outbox relay that died, a queue row removed by hand), and rows ordered behind a
   * predecessor that was tried are released. At start every pending row is re-queued; the
   * periodic sweep takes only rows untouched for `repairSeconds`, so a row whose job is being
   * committed or relayed right now is left alone. A row with a live job is not queued twice
   * (the job's dedupe key), so a retry waiting on its schedule keeps its time. Returns how many
   * rows were queued or released.
   */
  async repairOutbox(all: boolean): Promise<number> {
    const before = all ? undefined : new Date(this.now().getTime() - this.options.repairSeconds * 1000);
    let n = 0;
    for (const id of await this.store.pendingIds(before)) {
      await this.enqueue(id);
      n++;
    }
    for (const id of await this.store.releasablePredecessors()) {
      const released = await this.store.release(id, this.now());
      for (const r of released) await this.enqueue(r);
      n += released.length;
    }
    return n;
  }

  /** One attempt of a delivery (a job run). Throws to let the queue retry on schedule. */
  async deliver(deliveryId: string, ctx: Pick<JobContext, 'attempt' | 'maxAttempts'>, resend = false): Promise<void> {
    const row = await this.store.get(deliveryId);
    if (row?.status !== 'pending') return;
    const target = await this.targets.target(row.key_id);
    const url = row.callback_url ?? target?.url ?? null;
    if (!target || !url) {
      // Deleted or disabled key, or no URL at all: nothing is sent for it (spec rule 4).
      await this.store.setStatus(row.id, 'cancelled', target ? 'no webhook URL' : 'key deleted or disabled', this.now());
      await this.releaseAfter(row.id);
      return;
    }
    if (!resend && row.attempts >= MAX_ATTEMPTS) {
      await this.store.setStatus(row.id, 'failed', row.last_error, this.now());
      return;
    }
    const startedAt = this.now();
    await crashPoint(`webhook.sending.${row.event}`);
    const result = await this.sender.send(url, row.event, row.id, row.body, target.secret, this.options.timeoutMs);
    await crashPoint(`webhook.sent.${row.event}`);
    await this.store.recordAttempt(row, {
      url,
      startedAt,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
    });
    await this.releaseAfter(row.id);
    const log = {
      delivery_id: row.id,
      event: row.event,
      attempt: row.attempts,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
    };
    if (result.ok) {
      await this.store.setStatus(row.id, 'delivered', null, this.now());
      this.logger.info(log, 'webhook delivered');
      return;
    }
    const last = ctx.attempt >= ctx.maxAttempts || row.attempts >= MAX_ATTEMPTS;
    if (last) await this.store.setStatus(row.id, 'failed', result.error, this.now());
    this.logger.warn({ ...log, error: result.error, final: last }, 'webhook attempt failed');
    throw new Error(`webhook ${row.id} attempt ${row.attempts} failed: ${result.error}`);
  }

  /** Attempt log of a delivery, for operators. */
  async describe(deliveryId: string) {
    const row = await this.store.get(deliveryId);
    return row ? { delivery: row, attempts: await this.store.attempts(deliveryId) } : null;
  }
}
