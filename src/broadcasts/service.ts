/**
 * The host's side over REST: create a broadcast (spec "Broadcasts and viewers"), and the
 * operations the spec names but does not shape, designed in docs/broadcasts.md: list and
 * read the account's broadcasts, update what may change, revoke. Broadcasts belong to the
 * account (any of its keys sees them, as with tasks); the creating key is recorded.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventBus } from '../bus/types.js';
import { displayWebhookUrl } from '../keys/service.js';
import { type ActivePlan, PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import type { CatchUpStore } from './catch-up/store.js';
import { BROADCAST_REVOKED_TOPIC, type BroadcastRevokedEvent } from './events.js';
import { parseCreate, parseUpdate, type RuleContext } from './rules.js';
import type { SeatCounts } from './seats.js';
import { hashPassCode, newChannelToken } from './secrets.js';
import type { Broadcast, BroadcastStatus, BroadcastStore } from './store.js';
import { viewerTopic } from './viewer-events.js';

/** Draws before giving up on a free token (36^4 = 1.7 million; a clash is rare until very many run). */
const TOKEN_DRAWS = 25;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const STATUSES: BroadcastStatus[] = ['pending', 'active', 'ended', 'revoked'];

export interface BroadcastServiceDeps {
  store: BroadcastStore;
  /** Catch-up summaries: removed when the host turns them off. */
  catchUps?: CatchUpStore;
  bus: EventBus;
  /** The account's authorization (plan-bound unlimited plans never include broadcasts). */
  activePlan(accountId: string): Promise<ActivePlan>;
  rules: RuleContext;
  /** Live viewer and queue counts (every node's viewers). */
  counts(broadcastId: string): Promise<SeatCounts>;
  now: () => Date;
  logger?: Logger;
}

/** Live in the viewers' sense: a host session runs in the live phase (paused included). */
export function isLive(b: Pick<Broadcast, 'status' | 'phase'>): boolean {
  return b.status === 'active' && (b.phase === 'live' || b.phase === 'paused');
}

/** The owner's view of a broadcast (never the pass code or its hash). */
export function ownerJson(b: Broadcast, counts: SeatCounts = { viewers: 0, queued: 0 }) {
  return {
    id: b.id,
    token: b.token,
    name: b.name,
    status: b.status,
    phase: b.phase,
    is_live: isLive(b),
    access_type: b.accessType,
    requires_password: b.accessType === 'password',
    transcription_languages: b.transcriptionLanguages,
    translation_languages: b.translationLanguages,
    speaker_diarization: b.speakerDiarization,
    max_viewers: b.maxViewers,
    tts_config: b.ttsConfig,
    summary_template: b.summaryTemplate,
    summary_language: b.summaryLanguage,
    callback_url: displayWebhookUrl(b.callbackUrl),
    catch_up: b.catchUp,
    task_id: b.taskId,
    viewer_count: counts.viewers,
    queue_count: counts.queued,
    peak_viewers: b.peakViewers,
    total_viewers: b.totalViewers,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
    started_at: b.startedAt,
    ended_at: b.endedAt,
    revoked_at: b.revokedAt,
  };
}

export class BroadcastService {
  constructor(private readonly d: BroadcastServiceDeps) {}

  /** Throws 403 plan_feature_not_allowed under a plan-bound unlimited plan (spec: no broadcasts there). */
  async assertAllowed(principal: Principal): Promise<void> {
    PlanService.assertFeature(await this.d.activePlan(principal.accountId), 'broadcast', 'broadcast');
  }

  async create(principal: Principal, body: unknown): Promise<Broadcast> {
    await this.assertAllowed(principal);
    const input = parseCreate(body, this.d.rules);
    const passCodeHash = input.passCode === null ? null : await hashPassCode(input.passCode);
    const id = randomUUID();
    for (let i = 0; i < TOKEN_DRAWS; i++) {
      const token = newChannelToken();
      const inserted = await this.d.store.insert({
        id,
        accountId: principal.accountId,
        keyId: principal.keyId,
        token,
        settings: input.settings,
        passCodeHash,
        now: this.d.now(),
      });
      if (inserted) return (await this.d.store.get(id))!;
    }
    throw new AppError('internal_error', { message: 'No free broadcast token was found; retry.' });
  }

  /** One broadcast of the caller's account; 404 broadcast_not_found for unknown, malformed or foreign ids. */
  async get(principal: Principal, id: string): Promise<Broadcast> {
    const b = UUID.test(id) ? await this.d.store.get(id.toLowerCase()) : null;
    if (!b || b.accountId !== principal.accountId) throw new AppError('broadcast_not_found', { details: { id } });
    return b;
  }

  async list(principal: Principal, page: number, perPage: number, status: BroadcastStatus | null) {
    const { rows, total } = await this.d.store.list(principal.accountId, page, perPage, status);
    const counts = await Promise.all(rows.map((b) => this.liveCounts(b)));
    return {
      data: rows.map((b, i) => ownerJson(b, counts[i])),
      meta: { current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)), per_page: perPage, total },
    };
  }

  /** The owner's view with the live counts (viewers may wait before the host starts; none after the end). */
  async ownerView(b: Broadcast) {
    return ownerJson(b, await this.liveCounts(b));
  }

  private liveCounts(b: Broadcast): Promise<SeatCounts> {
    return b.status === 'active' || b.status === 'pending' ? this.d.counts(b.id) : Promise.resolve({ viewers: 0, queued: 0 });
  }

  async update(principal: Principal, id: string, body: unknown): Promise<Broadcast> {
    // A start, an end or a revoke can land between the read and the write: read again then.
    for (let attempt = 0; attempt < 3; attempt++) {
      const b = await this.get(principal, id);
      const u = parseUpdate(body, b, b.status, this.d.rules);
      let access: { passCodeHash: string | null; bump: boolean } | null = null;
      if (u.accessChanged) {
        access = { passCodeHash: u.passCode === null ? null : await hashPassCode(u.passCode), bump: true };
        if (u.settings.accessType === 'public') access.passCodeHash = null;
      }
      if (await this.d.store.update(b.id, b.status, u.settings, access, this.d.now())) {
        // Turned off: late joiners get no summary from now on, and what was written is gone.
        if (b.catchUp && !u.settings.catchUp) await this.d.catchUps?.remove(b.id);
        // Watching viewers re-check their access (those whose token no longer opens it are kicked).
        if (u.accessChanged) {
          await this.d.bus
            .publish(viewerTopic(b.id), { event: 'access_changed', data: {} })
            .catch((err: unknown) => this.d.logger?.error({ err }, 'access_changed not published'));
        }
        // Viewers (and the queue on every node) follow a new max_viewers at once.
        if (u.settings.maxViewers !== b.maxViewers) {
          await this.d.bus
            .publish(viewerTopic(b.id), { event: 'max_viewers_changed', data: { max_viewers: u.settings.maxViewers } })
            .catch((err: unknown) => this.d.logger?.error({ err }, 'max_viewers_changed not published'));
        }
        return (await this.d.store.get(b.id))!;
      }
    }
    throw new AppError('broadcast_not_editable', { message: 'The broadcast changed state during the update; retry.' });
  }

  /**
   * Revokes a broadcast: its link stops working at once (viewers get broadcast_token_revoked,
   * viewer tokens are deleted) and a running broadcast ends. Revoking again changes nothing.
   */
  async revoke(principal: Principal, id: string): Promise<Broadcast> {
    const b = await this.get(principal, id);
    if (await this.d.store.revoke(b.id, this.d.now())) {
      const event: BroadcastRevokedEvent = { broadcast_id: b.id, token: b.token };
      // The revoke is committed: viewers re-check the broadcast on their next lookup even if
      // this announcement is lost, so a bus failure is logged, not answered as an error.
      await this.d.bus
        .publish(BROADCAST_REVOKED_TOPIC, event)
        .catch((err: unknown) => this.d.logger?.error({ err }, 'revoke not announced'));
    }
    return (await this.d.store.get(b.id))!;
  }
}
