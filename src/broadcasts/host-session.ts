/**
 * The host's side of a running broadcast, on the node that holds the host's WebSocket. The
 * connection (src/realtime/connection.ts) runs the recording as for any live session and
 * hands this class the moments that matter to viewers: the start, each result and
 * translation, pause/resume/stop, the broadcast actions, the host's drop and the end.
 * This class keeps the phase (phase.ts), persists it, and publishes what viewers see on the
 * broadcast's viewer topic, from where every node's viewer streams read it.
 *
 * Decisions (docs/broadcasts.md): a host that drops freezes the broadcast; the same account
 * returns with a new ticket and a `start` with the same token within the host wait
 * (PARLEY_BROADCAST_HOST_WAIT_SECONDS), and the broadcast resumes in its phase with a new
 * recording (a new task); after the wait it ends. Broadcasts are exempt from the silence
 * auto-end.
 */
import type { Logger } from 'pino';
import { type ActivePlan, PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { type BroadcastStart, MAX_STANDBY_MESSAGE, validateBroadcastStart } from './host-start.js';
import { type BroadcastState, captionsFlow, type HostAction, initialState, step, type ViewerSignal } from './phase.js';
import type { RuleContext } from './rules.js';
import type { ViewerSeats } from './seats.js';
import type { Broadcast, BroadcastStore } from './store.js';
import type { ViewerEvent } from './viewer-events.js';

const ws = { variant: 'websocket' as const };

export interface BroadcastHostDeps {
  store: BroadcastStore;
  seats: ViewerSeats;
  /** Sends an event to every viewer of the broadcast, on every node. */
  publish(broadcastId: string, event: ViewerEvent): Promise<void>;
  /** Host text (announcements, standby messages) in another language; null when no engine serves the pair. */
  translate(text: string, from: string, to: string): Promise<string | null>;
  activePlan(accountId: string): Promise<ActivePlan>;
  /** Calls `handler` when the broadcast is revoked (REST, any node). */
  onRevoked(broadcastId: string, handler: () => void): Promise<() => void>;
  rules: Pick<RuleContext, 'voices'>;
  /** How long a frozen broadcast waits for its host before it ends. */
  hostWaitMs: number;
  now: () => Date;
  logger: Logger;
}

/** The regular start fields a broadcast's recording runs with (validated by src/realtime/start.ts). */
export type StartData = Record<string, unknown>;

export type Prepared = { ok: true; host: BroadcastHost; startData: StartData } | { ok: false; error: AppError };

/**
 * Checks a `start` of type broadcast: its own fields, the plan (403 plan_feature_not_allowed:
 * plan-bound unlimited keys cannot broadcast), and the channel the token names, which must
 * be the caller's and usable. The recording's settings come from the channel.
 */
export async function prepareBroadcast(deps: BroadcastHostDeps, principal: Principal, data: StartData): Promise<Prepared> {
  const checked = validateBroadcastStart(data, deps.rules);
  if (!checked.ok) return checked;
  try {
    PlanService.assertFeature(await deps.activePlan(principal.accountId), 'broadcast', 'type');
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: new AppError(err.code, { ...ws, details: err.details ?? undefined }) };
    throw err;
  }
  const channel = await deps.store.findByToken(checked.start.token);
  if (!channel || channel.accountId !== principal.accountId) {
    return { ok: false, error: new AppError('broadcast_token_invalid', { ...ws, details: { field: 'broadcast_token' } }) };
  }
  if (channel.status === 'revoked') return { ok: false, error: new AppError('broadcast_token_revoked', ws) };
  if (channel.status === 'ended') return { ok: false, error: new AppError('broadcast_session_ended', ws) };
  const s = checked.start;
  const startData: StartData = {
    type: 'transcribe',
    transcription_languages: channel.transcriptionLanguages,
    translation_languages: channel.translationLanguages,
    realtime_translation: true,
    audio_format: s.audioFormat,
    recognition_mode: channel.speakerDiarization ? 'multi_speaker' : 'single',
    name: channel.name ? [...channel.name].slice(0, 60).join('') : undefined,
    summary_template: s.summaryTemplate ?? channel.summaryTemplate ?? undefined,
    summary_language: channel.summaryLanguage,
  };
  return { ok: true, host: new BroadcastHost(deps, principal, channel, s), startData };
}

export class BroadcastHost {
  private state: BroadcastState;
  private standby: { message: string; translations: Record<string, string> } | null = null;
  private liveSince: number | null = null;
  /** Wall-clock time of the current recording's audio position 0. */
  private recordingStart = 0;
  private resumed = false;
  private offRevoked: () => void = () => {};
  private waitTimer: NodeJS.Timeout | null = null;
  /** Set when this host's recording must not end the broadcast (the host dropped, or it was revoked). */
  private keepBroadcast = false;

  constructor(
    private readonly deps: BroadcastHostDeps,
    readonly principal: Principal,
    readonly channel: Broadcast,
    readonly start: BroadcastStart,
  ) {
    this.state = initialState(start.phase);
  }

  get id(): string {
    return this.channel.id;
  }

  get phase(): 'standby' | 'live' {
    return this.state.phase;
  }

  /**
   * Takes the broadcast for this host before its recording starts: pending -> active, or a
   * frozen broadcast resumes (in the phase it had). Another connected host: refused.
   */
  async claim(): Promise<void> {
    const outcome = await this.deps.store.beginHost(this.id, {
      hostKeyId: this.principal.keyId,
      phase: this.start.phase,
      now: this.deps.now(),
    });
    if (!outcome) {
      const now = await this.deps.store.get(this.id);
      if (now?.status === 'ended') throw new AppError('broadcast_session_ended', ws);
      if (now?.status === 'revoked') throw new AppError('broadcast_token_revoked', ws);
      throw new AppError('broadcast_already_hosted', ws);
    }
    const row = (await this.deps.store.get(this.id))!;
    this.resumed = outcome === 'resumed';
    if (this.resumed) this.state = { ...initialState((row.phase ?? 'live') as 'standby' | 'live'), hostConnected: false };
    this.liveSince = row.liveSince ? Date.parse(row.liveSince) : null;
  }

  /** The recording could not begin after the claim: the broadcast waits for a new start (frozen). */
  async release(): Promise<void> {
    await this.deps.store.freeze(this.id, this.deps.now());
  }

  /** The recording runs: viewers are told what they need to know of the start. */
  async attach(taskId: string, onRevoked: () => void): Promise<void> {
    this.recordingStart = this.deps.now().getTime();
    await this.deps.store.setTask(this.id, taskId);
    this.offRevoked = await this.deps.onRevoked(this.id, () => {
      this.keepBroadcast = true;
      onRevoked();
    });
    if (this.start.standbyMessage) this.standby = await this.translated(this.start.standbyMessage);
    if (this.resumed) {
      const r = step(this.state, { kind: 'host_returned' });
      if ('state' in r) {
        this.state = r.state;
        await this.signal(r.signals);
      }
    } else if (this.state.phase === 'live') {
      await this.signal([{ event: 'phase_changed', phase: 'live' }, { event: 'recording_started' }]);
    }
    if (this.state.phase === 'standby') await this.sendStandby();
  }

  /** What `session_started` adds for a broadcast. */
  async startedFields(): Promise<Record<string, unknown>> {
    const [counts, row] = await Promise.all([this.deps.seats.counts(this.id), this.deps.store.get(this.id)]);
    return {
      phase: this.state.phase,
      broadcast_id: this.id,
      viewer_count: counts.viewers,
      queue_count: counts.queued,
      peak_viewers: row?.peakViewers ?? 0,
      total_viewers: row?.totalViewers ?? 0,
    };
  }

  /** A result or translation of the recording: to viewers only while captions flow. */
  fromRecording(action: string, payload: Record<string, unknown>): void {
    if (!captionsFlow(this.state)) return;
    if (action === 'result') {
      const o = payload.origin as { sid: number; text: string; is_final: boolean; speaker_id: string | null; start_time: string };
      const data: Record<string, unknown> = {
        sid: o.sid,
        text: o.text,
        speaker_label: null,
        start_time: this.fromGoLive(o.start_time),
        is_final: o.is_final,
      };
      if (this.channel.speakerDiarization) data.speaker_id = o.speaker_id;
      void this.publish({ event: 'origin', data });
    } else if (action === 'translation') {
      const t = payload as { sid: number; language: string; text: string; is_final: boolean };
      void this.publish({
        event: 'translation',
        data: { sid: t.sid, language: t.language, text: t.text, speaker_id: null, speaker_label: null, is_final: t.is_final },
      });
    }
  }

  /** pause, resume and stop of the host (after the recording's own state machine accepted them). */
  async control(action: 'pause' | 'resume' | 'stop'): Promise<void> {
    await this.apply({ kind: action });
    if (action === 'stop') await this.endBroadcast();
  }

  /** broadcast_go_live: standby -> live. Answers the host with phase_changed. */
  async goLive(): Promise<Record<string, unknown>> {
    await this.apply({ kind: 'go_live' });
    const now = this.deps.now();
    await this.deps.store.setPhase(this.id, 'live', now);
    this.liveSince ??= now.getTime();
    return { phase: 'live' };
  }

  /** broadcast_announcement: `message` (with optional `translations`) to every viewer, in any phase. */
  async announce(data: Record<string, unknown>): Promise<Record<string, unknown>> {
    const message = hostText(data.message, 'message');
    const given = translationsOf(data.translations);
    const payload = await this.translated(message, given);
    await this.publish({ event: 'announcement', data: payload });
    return payload;
  }

  /** set_standby_message: kept for viewers who arrive in standby; sent at once while in standby. */
  async setStandbyMessage(data: Record<string, unknown>): Promise<Record<string, unknown>> {
    const message = hostText(data.message ?? data.standby_message, 'message');
    this.standby = await this.translated(message, translationsOf(data.translations));
    if (this.state.phase === 'standby') await this.sendStandby();
    return this.standby;
  }

  /**
   * The host's connection dropped while recording: the broadcast freezes (viewers stay, told
   * host_disconnected) and ends if no host returns within the wait.
   */
  async hostDropped(): Promise<void> {
    this.keepBroadcast = true;
    await this.apply({ kind: 'host_dropped' });
    await this.deps.store.freeze(this.id, this.deps.now());
    this.waitTimer = setTimeout(() => void this.endIfStillFrozen(), this.deps.hostWaitMs);
    this.waitTimer.unref();
  }

  /**
   * The recording ended. Unless the host dropped (the broadcast waits) or it was revoked, the
   * broadcast ends with it: a stop, credit running out, a plan limit, a force-fail.
   */
  async recordingEnded(): Promise<void> {
    this.offRevoked();
    if (this.keepBroadcast || this.state.ended) return;
    await this.apply({ kind: 'stop' });
    await this.endBroadcast();
  }

  private async endIfStillFrozen(): Promise<void> {
    try {
      const row = await this.deps.store.get(this.id);
      if (row?.status !== 'active' || row.frozenAt === null) return;
      if (Date.parse(row.frozenAt) > this.deps.now().getTime() - this.deps.hostWaitMs + 1000) return;
      if (await this.deps.store.end(this.id, this.deps.now())) await this.publish({ event: 'ended', data: { reason: 'host_gone' } });
    } catch (err) {
      this.deps.logger.error({ err, broadcast_id: this.id }, 'frozen broadcast not ended');
    }
  }

  private async endBroadcast(): Promise<void> {
    await this.deps.store.end(this.id, this.deps.now());
  }

  private async apply(action: HostAction): Promise<void> {
    const r = step(this.state, action);
    if ('error' in r) throw r.error;
    this.state = r.state;
    await this.signal(r.signals);
  }

  private async signal(signals: ViewerSignal[]): Promise<void> {
    for (const s of signals) {
      const { event, ...data } = s;
      await this.publish({ event, data });
    }
  }

  private async sendStandby(): Promise<void> {
    await this.publish({ event: 'standby', data: this.standby ?? {} });
  }

  private async publish(e: ViewerEvent): Promise<void> {
    try {
      await this.deps.publish(this.id, e);
    } catch (err) {
      this.deps.logger.warn({ err, broadcast_id: this.id, event: e.event }, 'viewer event not published');
    }
  }

  /** mm:ss from the recording's start -> mm:ss from going live (viewers count from 00:00 at go-live). */
  private fromGoLive(startTime: string): string {
    const [m, s] = startTime.split(':').map(Number);
    const at = this.recordingStart + ((m ?? 0) * 60 + (s ?? 0)) * 1000;
    const ms = Math.max(0, at - (this.liveSince ?? at));
    const total = Math.floor(ms / 1000);
    return `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
  }

  /** The message and its translations into each translation language (given ones are kept). */
  private async translated(message: string, given: Record<string, string> = {}) {
    const from = this.channel.transcriptionLanguages[0]!;
    const translations: Record<string, string> = {};
    for (const to of this.channel.translationLanguages) {
      const text = given[to] ?? (await this.deps.translate(message, from, to).catch(() => null));
      if (text) translations[to] = text;
    }
    return { message, translations };
  }

  dispose(): void {
    this.offRevoked();
    if (this.waitTimer) clearTimeout(this.waitTimer);
  }
}

function hostText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || [...value.trim()].length > MAX_STANDBY_MESSAGE) {
    throw new AppError('invalid_parameter', {
      ...ws,
      message: `${field} must be a text of 1 to ${MAX_STANDBY_MESSAGE} characters.`,
      details: { field },
    });
  }
  return value.trim();
}

function translationsOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw new AppError('invalid_parameter', {
      ...ws,
      message: 'translations must map a language to a text.',
      details: { field: 'translations' },
    });
  }
  return value as Record<string, string>;
}
