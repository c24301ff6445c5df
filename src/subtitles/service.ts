/**
 * Floating-subtitle access (spec "Floating subtitle access", "Tokens", Limits): owner feed
 * tokens from the API key, one share per recording whose secret the audience exchanges for
 * read-only feed tokens, and the checks every one of them passes:
 *
 * - the recording is a live recording of the caller (else 404 `recording_not_found`: a
 *   foreign recording looks exactly like a missing one);
 * - the owner's plan includes the feature (`plan_feature_not_allowed`, see FEATURE);
 * - it is in progress: 425 `recording_not_ready` while its task is `recording` but its live
 *   session has not started streaming yet, 410 `recording_ended` once it left `recording`.
 *
 * Tokens are 48 characters, valid 900 s from their last use (sliding); share secrets are 48
 * characters, valid 43200 s. Both are stored hashed (store.ts).
 */
import { randomString } from '../keys/format.js';
import type { ActivePlan } from '../plans/service.js';
import { PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { TaskRecord } from '../tasks/store.js';
import type { FeedTokenGrant, SubtitleStore } from './store.js';

export const FEED_TOKEN_LENGTH = 48;
export const FEED_TOKEN_TTL_SECONDS = 900;
export const SHARE_SECRET_LENGTH = 48;
export const SHARE_TTL_SECONDS = 43_200;
/**
 * The plan feature floating subtitles need on a plan-bound unlimited plan: its own per-minute
 * feature, so a catalogue can sell translation without the audience window (or captions
 * without translation). A catalogue entry that does not name it takes its `translation` value
 * (src/plans/catalogue.ts). Credit and unrestricted unlimited modes always pass.
 */
export const FEATURE = 'floating_subtitles';
const SWEEP_EVERY_MS = 60_000;

export interface SubtitlePorts {
  store: SubtitleStore;
  /** Any task by id (the public exchange has no principal). */
  getTask(taskId: string): Promise<TaskRecord | null>;
  /** The plan in force for an account. */
  activePlan(accountId: string): Promise<ActivePlan>;
  /** Whether the live session of a `recording` task has started streaming (the session stream knows). */
  isStreaming(taskId: string): Promise<boolean>;
  now: () => Date;
}

export type LiveState = 'live' | 'not_ready' | 'ended';

export class SubtitleService {
  private lastSweep = 0;

  constructor(private readonly ports: SubtitlePorts) {}

  /** POST /auth/tasks/{id}/subtitle-feed-token */
  async ownerToken(principal: Principal, taskId: string): Promise<{ token: string; expires_in: number }> {
    const task = await this.ownedLiveRecording(principal, taskId);
    return this.issue(task.taskId, 'owner', null);
  }

  /** POST /auth/tasks/{id}/subtitle-share: a new secret; the previous one (and its audience tokens) stops working. */
  async enableShare(principal: Principal, taskId: string): Promise<{ share_secret: string; expires_in: number }> {
    const task = await this.ownedLiveRecording(principal, taskId);
    const secret = randomString(SHARE_SECRET_LENGTH);
    const now = this.ports.now();
    await this.ports.store.revokeShare(task.taskId);
    await this.ports.store.enableShare(task.taskId, secret, new Date(now.getTime() + SHARE_TTL_SECONDS * 1000), now);
    return { share_secret: secret, expires_in: SHARE_TTL_SECONDS };
  }

  /**
   * DELETE /auth/tasks/{id}/subtitle-share: false for a missing or foreign recording; for
   * the owner true (afterwards no share link works, whether one was enabled or not), at any
   * status, so a link can be withdrawn after the recording ended too.
   */
  async revokeShare(principal: Principal, taskId: string): Promise<{ revoked: boolean }> {
    const task = await this.ports.getTask(taskId);
    if (!task || task.accountId !== principal.accountId) return { revoked: false };
    await this.ports.store.revokeShare(task.taskId);
    return { revoked: true };
  }

  /** POST /public/tasks/{id}/subtitle-feed-token (rate limited by the route before this runs). */
  async exchange(taskId: string, secret: unknown): Promise<{ token: string; expires_in: number }> {
    // Any malformed secret is an invalid share: the audience learns nothing more from it.
    if (typeof secret !== 'string' || secret.length !== SHARE_SECRET_LENGTH) throw new AppError('invalid_share');
    const shareId = await this.ports.store.matchShare(taskId, secret, this.ports.now());
    if (!shareId) throw new AppError('invalid_share');
    const task = await this.ports.getTask(taskId);
    if (!task) throw new AppError('invalid_share');
    await this.assertPlan(task.accountId);
    await this.assertLive(task);
    return this.issue(task.taskId, 'audience', shareId);
  }

  /**
   * Uses a feed token for `taskId` (sliding its expiry); 401 `feed_token_invalid` when it is
   * unknown, expired, for another recording, or came from a share that was revoked or replaced.
   */
  async useToken(taskId: string, token: unknown): Promise<FeedTokenGrant> {
    if (typeof token !== 'string' || token.length !== FEED_TOKEN_LENGTH) throw new AppError('feed_token_invalid');
    const now = this.ports.now();
    const grant = await this.ports.store.useToken(token, now, new Date(now.getTime() + FEED_TOKEN_TTL_SECONDS * 1000));
    if (!grant || grant.taskId !== taskId.toLowerCase()) throw new AppError('feed_token_invalid');
    return grant;
  }

  /** Where a recording stands for subtitles (the SSE route opens only `live` ones). */
  async liveState(taskId: string): Promise<LiveState> {
    const task = await this.ports.getTask(taskId);
    if (task?.processingStatus !== 'recording') return 'ended';
    return (await this.ports.isStreaming(task.taskId)) ? 'live' : 'not_ready';
  }

  /** Throws 425 / 410 unless the recording is live. */
  async assertLive(task: TaskRecord): Promise<void> {
    if (task.processingStatus !== 'recording') throw new AppError('recording_ended');
    if (!(await this.ports.isStreaming(task.taskId))) throw new AppError('recording_not_ready');
  }

  private async ownedLiveRecording(principal: Principal, taskId: string): Promise<TaskRecord> {
    const task = await this.ports.getTask(taskId);
    // Imports are never live: they have no subtitle stream at all.
    if (!task || task.accountId !== principal.accountId || task.typeSource !== 'realtime') throw new AppError('recording_not_found');
    await this.assertPlan(task.accountId);
    await this.assertLive(task);
    return task;
  }

  private async assertPlan(accountId: string): Promise<void> {
    PlanService.assertFeature(await this.ports.activePlan(accountId), FEATURE, 'floating_subtitles');
  }

  private async issue(taskId: string, kind: 'owner' | 'audience', shareId: string | null) {
    const now = this.ports.now();
    const token = randomString(FEED_TOKEN_LENGTH);
    await this.ports.store.issueToken(token, {
      taskId,
      kind,
      shareId,
      expiresAt: new Date(now.getTime() + FEED_TOKEN_TTL_SECONDS * 1000),
      now,
    });
    if (now.getTime() - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now.getTime();
      await this.ports.store.sweep(now);
    }
    return { token, expires_in: FEED_TOKEN_TTL_SECONDS };
  }
}
