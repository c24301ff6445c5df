/**
 * The host's side of a running broadcast, on the node that holds the host's WebSocket: a
 * subscriber of the recording's session stream (results, translations, sentence errors,
 * speaker edits). The connection (src/realtime/connection.ts) runs the recording as for any
 * live session and knows this class only as a HostedAudience (src/realtime/ports.ts, wired in
 * src/app.ts): it hands over the start, pause/resume/stop, the broadcast actions, the host's
 * drop and the end.
 * This class keeps the phase (phase.ts), persists it, and publishes what viewers see on the
 * broadcast's viewer topic, from where every node's viewer streams read it.
 *
 * Decisions (docs/broadcasts.md): a host that drops freezes the broadcast; the same account
 * returns with a new ticket and a `start` with the same token within the host wait
 * (PARLEY_BROADCAST_HOST_WAIT_SECONDS), and the broadcast resumes in its phase with a new
 * recording (a new task); after the wait it ends. Broadcasts are exempt from the silence
 * auto-end. While live, the broadcast's catch-up summary for late joiners is kept here
 * (catch-up/keeper.ts), once for the broadcast.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { CatchUpKeeper } from './catch-up/keeper.js';
import { HostCaptions } from './host-captions.js';
import type { BroadcastHostDeps, BroadcastSession, SessionTranslate } from './host-deps.js';
import { type BroadcastStart, hostText, translationsOf } from './host-start.js';
import { InterimTranslations } from './interim-translations.js';
import { type BroadcastState, captionsFlow, type HostAction, initialState, step, type ViewerSignal } from './phase.js';
import { HostSinks } from './sinks/host-sinks.js';
import type { Broadcast } from './store.js';
import type { ViewerEvent } from './viewer-events.js';
import { ViewerSpeech } from './viewer-speech.js';

const ws = { variant: 'websocket' as const };

export type { BroadcastHostDeps, BroadcastSession, SessionTranslate } from './host-deps.js';

export class BroadcastHost {
  private state: BroadcastState;
  private standby: { message: string; translations: Record<string, string> } | null = null;
  private liveSince: number | null = null;
  /** Wall-clock time of the current recording's audio position 0. */
  private recordingStart = 0;
  /** The current recording, while attached (its audio position at go-live anchors caption times). */
  private recording: BroadcastSession | null = null;
  /** The current recording's audio position when the broadcast went live during it (null: live before it began). */
  private liveAtMs: number | null = null;
  private resumed = false;
  private offRevoked: () => void = () => {};
  private waitTimer: NodeJS.Timeout | null = null;
  /** Set when this host's recording must not end the broadcast (the host dropped, or it was revoked). */
  private keepBroadcast = false;
  /** The broadcast's caption sinks, while its recording runs here. */
  readonly sinks: HostSinks;
  /** Spoken translations: one synthesis per final sentence per language, for every viewer. */
  readonly speech: ViewerSpeech;
  private readonly interims: InterimTranslations;
  /** What viewers read of the recording: captions, their translations, speakers and corrections (host-captions.ts). */
  private readonly captions: HostCaptions;
  /** The recording's own translator (its session glossary applies), given at attach: interims translate as finals do. */
  private sessionTranslate: SessionTranslate | null = null;
  /** The catch-up summary of what was said live (null when the deployment has none). */
  private readonly catchUp: CatchUpKeeper | null;
  /** This host session's name on the broadcast's lease (only it renews or freezes it). */
  private readonly session = randomUUID();
  private leaseTimer: NodeJS.Timeout | null = null;
  /** Another host took the broadcast (this process's lease had lapsed): nothing more goes to viewers from here. */
  private superseded = false;
  /** hostDropped ran (drain or drop): the broadcast is frozen for this host session. */
  private dropped = false;
  private onLost: (error: AppError) => void = () => {};

  constructor(
    private readonly deps: BroadcastHostDeps,
    readonly principal: Principal,
    readonly channel: Broadcast,
    readonly start: BroadcastStart,
  ) {
    this.state = initialState(start.phase);
    const live = () => captionsFlow(this.state);
    this.speech = new ViewerSpeech({
      synthesizer: deps.synthesizer,
      setting: (language) => this.start.ttsConfig?.[language] ?? this.channel.ttsConfig[language],
      live,
      publish: (e) => this.publish(e),
      now: deps.now,
      logger: deps.logger,
    });
    this.sinks = new HostSinks(deps.sinks, channel.id, channel.transcriptionLanguages[0]!);
    this.interims = new InterimTranslations({
      languages: channel.translationLanguages,
      from: channel.transcriptionLanguages[0]!,
      translate: (text, from, to) => (this.sessionTranslate ? this.sessionTranslate(text, from, to) : Promise.resolve(null)),
      live,
      intervalMs: deps.interimTranslationMs,
      publish: (t) => this.publish({ event: 'translation', data: { ...t, ...this.captions.speaker(t.sid), is_final: false } }),
    });
    this.catchUp = deps.catchUp
      ? new CatchUpKeeper(deps.catchUp, {
          broadcastId: channel.id,
          source: channel.transcriptionLanguages[0]!,
          targets: channel.translationLanguages,
          enabled: async () => (await deps.store.get(channel.id))?.catchUp === true,
          holds: () => !this.superseded,
        })
      : null;
    this.captions = new HostCaptions({
      state: () => this.state,
      diarized: channel.speakerDiarization,
      publish: (e) => this.publish(e),
      msFromGoLive: (ms) => this.msFromGoLive(ms),
      recordingStart: () => this.recordingStart,
      interims: this.interims,
      sinks: this.sinks,
      speech: this.speech,
      catchUp: this.catchUp,
      now: deps.now,
    });
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
    const now = this.deps.now();
    const outcome = await this.deps.store.beginHost(this.id, {
      hostKeyId: this.principal.keyId,
      phase: this.start.phase,
      now,
      session: this.session,
      leaseUntil: new Date(now.getTime() + this.deps.hostLeaseMs),
    });
    if (!outcome) {
      const now = await this.deps.store.get(this.id);
      if (now?.status === 'ended') throw new AppError('broadcast_session_ended', ws);
      if (now?.status === 'revoked') throw new AppError('broadcast_token_revoked', ws);
      throw new AppError('broadcast_already_hosted', ws);
    }
    this.renewLease();
    // Viewers on any node learn from the row which languages they can listen to: this node synthesizes them.
    await this.deps.store.setTtsLanguages(this.id, ViewerSpeech.languages(this.channel.translationLanguages, this.deps.synthesizer));
    const row = (await this.deps.store.get(this.id))!;
    this.resumed = outcome === 'resumed';
    if (this.resumed) this.state = { ...initialState((row.phase ?? 'live') as 'standby' | 'live'), hostConnected: false };
    this.liveSince = row.liveSince ? Date.parse(row.liveSince) : null;
  }

  /** The recording could not begin after the claim: the broadcast waits for a new start (frozen). */
  async release(): Promise<void> {
    this.stopLease();
    await this.deps.store.freeze(this.id, this.session, this.deps.now());
  }

  /**
   * Renews the lease every third of its length while this host holds the broadcast. A renewal
   * refused means the lease lapsed and the broadcast moved on (another host took it, or it was
   * frozen and ended): this session stops speaking for it and the host is told.
   */
  private renewLease(): void {
    this.leaseTimer = setInterval(
      () => {
        const until = new Date(this.deps.now().getTime() + this.deps.hostLeaseMs);
        void this.deps.store
          .renewLease(this.id, this.session, until)
          .then(async (held) => {
            if (held || this.superseded || !this.leaseTimer) return;
            this.stopLease();
            this.superseded = true;
            this.keepBroadcast = true;
            const row = await this.deps.store.get(this.id);
            const code =
              row?.status === 'ended'
                ? 'broadcast_session_ended'
                : row?.status === 'revoked'
                  ? 'broadcast_token_revoked'
                  : 'broadcast_already_hosted';
            this.deps.logger.warn({ broadcast_id: this.id, code }, 'broadcast host lease lost');
            this.onLost(new AppError(code, ws));
          })
          .catch((err: unknown) => this.deps.logger.warn({ err, broadcast_id: this.id }, 'broadcast host lease not renewed'));
      },
      Math.max(200, Math.floor(this.deps.hostLeaseMs / 3)),
    );
    this.leaseTimer.unref();
  }

  private stopLease(): void {
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.leaseTimer = null;
  }

  /**
   * The recording runs: viewers are told what they need to know of the start, then the
   * broadcast subscribes to the session stream (phase rules decide what reaches viewers).
   * Returns the detach function of that subscription.
   */
  async attach(session: BroadcastSession, onRevoked: () => void, onLost: (error: AppError) => void): Promise<() => void> {
    this.onLost = onLost;
    this.sessionTranslate = session.translate;
    this.recording = session;
    this.liveAtMs = null;
    this.recordingStart = this.deps.now().getTime();
    await this.deps.store.setTask(this.id, session.taskId);
    await this.sinks.start();
    this.offRevoked = await this.deps.onRevoked(this.id, () => {
      this.keepBroadcast = true;
      onRevoked();
    });
    await this.catchUp?.start();
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
    return session.subscribe((e) => this.captions.fromRecording(e.event, e.data as unknown as Record<string, unknown>));
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

  /** An event of the recording's session stream (host-captions.ts decides what viewers get). */
  fromRecording(action: string, payload: Record<string, unknown>): void {
    this.captions.fromRecording(action, payload);
  }

  /**
   * pause and resume of the host (after the recording's own state machine accepted them). A
   * stop ends the broadcast once the recording has its last sentences out (recordingEnded), so
   * viewers and caption sinks get the sentence spoken just before the stop.
   */
  async control(action: 'pause' | 'resume' | 'stop'): Promise<void> {
    if (action === 'stop') return;
    await this.apply({ kind: action });
  }

  /** broadcast_go_live: standby -> live. Answers the host with phase_changed. */
  async goLive(): Promise<Record<string, unknown>> {
    const allowed = step(this.state, { kind: 'go_live' });
    if ('error' in allowed) throw allowed.error;
    // Written before viewers are told: a viewer admitted on the news reads (and its room shares) the live row.
    const now = this.deps.now();
    await this.deps.store.setPhase(this.id, 'live', now);
    await this.apply({ kind: 'go_live' });
    // Captions count from here on the recording's own timeline (audio may arrive faster or
    // slower than the wall clock: a client catching up after a stall, a test at 4x).
    this.liveAtMs = this.recording?.recordedMs() ?? null;
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
    this.stopLease();
    // Once: a drained host's connection may drop later too (its viewers were told already).
    if (this.superseded || this.dropped) return;
    this.dropped = true;
    // Late joiners while the broadcast waits get what was said up to the drop.
    void this.catchUp?.refresh();
    await this.apply({ kind: 'host_dropped' });
    await this.deps.store.freeze(this.id, this.session, this.deps.now());
    this.waitTimer = setTimeout(() => void this.endIfStillFrozen(), this.deps.hostWaitMs);
    this.waitTimer.unref();
  }

  /**
   * The recording ended. Unless the host dropped (the broadcast waits) or it was revoked, the
   * broadcast ends with it: a stop, credit running out, a plan limit, a force-fail.
   */
  async recordingEnded(): Promise<void> {
    this.offRevoked();
    this.stopLease();
    // Captions already handed to the sinks still go out (the last sentence comes just before the end).
    void this.sinks.close();
    // A broadcast that waits for its host keeps what its recording's last sentences said; one that ends needs no more.
    if (this.keepBroadcast && !this.superseded) void this.catchUp?.refresh();
    this.catchUp?.stop();
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
    // A pause is a natural moment to catch up: late joiners while it lasts get everything said before it.
    if (action.kind === 'pause') void this.catchUp?.refresh();
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
    if (this.superseded) return;
    try {
      await this.deps.publish(this.id, e);
    } catch (err) {
      this.deps.logger.warn({ err, broadcast_id: this.id, event: e.event }, 'viewer event not published');
    }
  }

  /** ms from the recording's start -> ms from going live (viewers count from 00:00 at go-live). */
  private msFromGoLive(recordingMs: number): number {
    if (this.liveAtMs !== null) return Math.max(0, recordingMs - this.liveAtMs);
    // Live before this recording began (a host who returned): its audio position 0 is its start on the wall clock.
    const at = this.recordingStart + recordingMs;
    return Math.max(0, at - (this.liveSince ?? at));
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
    this.stopLease();
    this.catchUp?.stop();
    void this.sinks.close();
    this.interims.dispose();
    this.offRevoked();
    if (this.waitTimer) clearTimeout(this.waitTimer);
  }
}
