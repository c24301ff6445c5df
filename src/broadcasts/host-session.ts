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
import type { Logger } from 'pino';
import type { Synthesizer } from '../engines/types.js';
import { type ActivePlan, PlanService } from '../plans/service.js';
import type { Principal } from '../platform/auth/types.js';
import { AppError } from '../platform/errors/app-error.js';
import { type ResultOrigin, type SentenceCorrected, type SessionEvent, startMsOf } from '../stream/events.js';
import type { SentenceErrorData } from '../stream/sentence-errors.js';
import { clock } from '../stream/wire.js';
import { speakerLabel } from '../tasks/format.js';
import { type CatchUpDeps, CatchUpKeeper } from './catch-up/keeper.js';
import { type BroadcastStart, MAX_STANDBY_MESSAGE, validateBroadcastStart } from './host-start.js';
import { InterimTranslations } from './interim-translations.js';
import { type BroadcastState, captionsFlow, type HostAction, initialState, step, type ViewerSignal } from './phase.js';
import type { RuleContext } from './rules.js';
import type { ViewerSeats } from './seats.js';
import { HostSinks, type HostSinksDeps } from './sinks/host-sinks.js';
import type { Broadcast, BroadcastStore } from './store.js';
import { viewerCorrection } from './viewer-corrections.js';
import { sentenceErrorEvent, type ViewerEvent } from './viewer-events.js';
import { ViewerSpeech } from './viewer-speech.js';

const ws = { variant: 'websocket' as const };

export interface BroadcastHostDeps {
  store: BroadcastStore;
  seats: ViewerSeats;
  /** Sends an event to every viewer of the broadcast, on every node. */
  publish(broadcastId: string, event: ViewerEvent): Promise<void>;
  /** Host text (announcements, standby messages) in another language; null when no engine serves the pair. */
  translate(text: string, from: string, to: string): Promise<string | null>;
  /** The synthesizer serving `language` here (viewers' tts_ready audio), or null. */
  synthesizer(language: string, voice?: string | null): Synthesizer | null;
  /** How often the sentence being spoken is translated for viewers (interim translations). */
  interimTranslationMs: number;
  /** Catch-up summaries for late joiners (absent: the deployment turned them off). */
  catchUp?: CatchUpDeps;
  activePlan(accountId: string): Promise<ActivePlan>;
  /** Calls `handler` when the broadcast is revoked (REST, any node). */
  onRevoked(broadcastId: string, handler: () => void): Promise<() => void>;
  rules: Pick<RuleContext, 'voices'>;
  /** Caption sinks (YouTube Live, Zoom): fed the live finals on this node. */
  sinks: HostSinksDeps;
  /** How long a frozen broadcast waits for its host before it ends. */
  hostWaitMs: number;
  /** How long this process holds the broadcast without renewing (renewed every third; host-lease.ts). */
  hostLeaseMs: number;
  now: () => Date;
  logger: Logger;
}

/** Text into another language through the recording's translator with its session glossary (what its finals get). */
export type SessionTranslate = (text: string, from: string, to: string) => Promise<string>;

/** The live session a broadcast subscribes to on the host's node (src/realtime/ports.ts AudienceSession, wired in src/app.ts). */
export interface BroadcastSession {
  taskId: string;
  /** This node's listeners of the session stream; returns the detach function. */
  subscribe(listener: (event: SessionEvent) => void): () => void;
  translate: SessionTranslate;
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
  /** Final sentences of the current recording (text, speaker, when spoken), for translations' speaker fields, tts_ready's transcript and caption sinks' times. */
  private readonly finals = new Map<number, { text: string; speakerId: string | null; at: Date }>();
  /** The broadcast's caption sinks, while its recording runs here. */
  readonly sinks: HostSinks;
  /** Speaker display names of the current recording (renames and merges). */
  private labels: Record<string, string> = {};
  /** Spoken translations: one synthesis per final sentence per language, for every viewer. */
  readonly speech: ViewerSpeech;
  private readonly interims: InterimTranslations;
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
      publish: (t) => this.publish({ event: 'translation', data: { ...t, ...this.speaker(t.sid), is_final: false } }),
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
    return session.subscribe((e) => this.fromRecording(e.event, e.data as unknown as Record<string, unknown>));
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

  /**
   * An event of the recording's session stream. Results, translations and sentence errors
   * reach viewers only while captions flow (live); a final translation is also spoken once for every tts
   * viewer; the sentence being spoken is translated for viewers (interim translations).
   * Speaker edits reach viewers of a multi-speaker broadcast once it went live.
   */
  fromRecording(action: string, payload: Record<string, unknown>): void {
    if (action === 'speaker_renamed' || action === 'speaker_reassigned' || action === 'speakers_merged') {
      this.speakerEdit(action, payload);
      return;
    }
    // Sentence corrections (viewer-corrections.ts).
    if (action === 'sentence_corrected') {
      this.corrected(payload as unknown as SentenceCorrected);
      return;
    }
    if (!captionsFlow(this.state)) return;
    if (action === 'sentence_error') {
      const e = payload as unknown as SentenceErrorData;
      void this.publish(sentenceErrorEvent({ code: e.error_code, ...e }, e.sid, e.translation_language, this.deps.now()));
    } else if (action === 'result') {
      const o = payload.origin as ResultOrigin;
      const startMs = startMsOf(o);
      const diarized = this.channel.speakerDiarization;
      const data: Record<string, unknown> = {
        sid: o.sid,
        text: o.text,
        speaker_label: diarized ? speakerLabel(this.labels, o.speaker_id) : null,
        start_time: clock(this.msFromGoLive(startMs)),
        is_final: o.is_final,
      };
      if (diarized) data.speaker_id = o.speaker_id;
      if (o.is_final && o.text === '')
        this.interims.finalOrigin(o.sid); // withdrawn: no caption
      else if (o.is_final) {
        const at = new Date(this.recordingStart + startMs);
        this.finals.set(o.sid, { text: o.text, speakerId: o.speaker_id, at });
        if (this.finals.size > 100) this.finals.delete(this.finals.keys().next().value as number);
        this.interims.finalOrigin(o.sid);
        this.sinks.caption(null, { text: o.text, at });
        this.catchUp?.add(this.msFromGoLive(startMs), o.text);
      }
      void this.publish({ event: 'origin', data });
      if (!o.is_final) this.interims.interim(o.sid, o.text);
    } else if (action === 'translation') {
      const t = payload as { sid: number; language: string; text: string; is_final: boolean };
      void this.publish({
        event: 'translation',
        data: { sid: t.sid, language: t.language, text: t.text, ...this.speaker(t.sid), is_final: t.is_final },
      });
      if (t.is_final) {
        const origin = this.finals.get(t.sid);
        this.speech.add({ sid: t.sid, language: t.language, transcript: origin?.text ?? '', text: t.text });
        this.sinks.caption(t.language, { text: t.text, at: origin?.at ?? this.deps.now() });
      }
    }
  }

  /** speaker_id and speaker_label of a sentence (multi-speaker mode; null otherwise). */
  private speaker(sid: number): { speaker_id: string | null; speaker_label: string | null } {
    if (!this.channel.speakerDiarization) return { speaker_id: null, speaker_label: null };
    const id = this.finals.get(sid)?.speakerId ?? null;
    return { speaker_id: id, speaker_label: speakerLabel(this.labels, id) };
  }

  /** A speaker edit (REST or the host's actions): labels follow it; viewers of a live multi-speaker broadcast get it. */
  private speakerEdit(action: string, d: Record<string, unknown>): void {
    if (action === 'speaker_renamed') {
      const id = String(d.speaker_id);
      if (d.new_label === id) delete this.labels[id];
      else this.labels[id] = String(d.new_label);
    } else if (action === 'speakers_merged') {
      delete this.labels[String(d.source_speaker_id)];
      this.labels[String(d.target_speaker_id)] = String(d.target_speaker_label);
      for (const sid of (d.affected_sids as number[]) ?? []) {
        const f = this.finals.get(sid);
        if (f) f.speakerId = String(d.target_speaker_id);
      }
    } else {
      const f = this.finals.get(Number(d.sid));
      if (f) f.speakerId = String(d.new_speaker_id);
    }
    // Standby sentences never reached viewers; single-speaker broadcasts have no speakers to show.
    if (!this.channel.speakerDiarization || this.state.phase !== 'live' || this.state.ended) return;
    void this.publish({ event: action, data: d });
  }

  /** A sentence corrected (docs/corrections.md): viewers of the live phase and the caption sinks get the new text. */
  private corrected(c: SentenceCorrected): void {
    const final = this.finals.get(c.sid);
    // Only sentences viewers saw (said while captions flowed) are corrected on their screens.
    if (!final || this.state.phase !== 'live' || this.state.ended) return;
    final.text = c.text;
    void this.publish(
      viewerCorrection(
        c,
        this.speaker(c.sid),
        clock(this.msFromGoLive(startMsOf({ start_time: c.start_time }))),
        this.channel.speakerDiarization,
      ),
    );
    this.sinks.caption(null, { text: c.text, at: this.deps.now() });
    for (const [language, text] of Object.entries(c.translations)) this.sinks.caption(language, { text, at: this.deps.now() });
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
