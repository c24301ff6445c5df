/**
 * The broadcast a live session hosts (a HostedAudience: audiences.ts): claimed by a start still
 * being set up, then hosted while its recording runs, subscribed to the session stream for its
 * viewers. The session (session.ts) owns one Hosting; every interaction with the broadcast goes
 * through it.
 */
import type { Logger } from 'pino';
import type { AppError } from '../../platform/errors/app-error.js';
import type { HostedAudience } from '../ports.js';
import type { Recording } from '../recording.js';

export class Hosting {
  /** A broadcast claimed by a start still being set up (given back if its client leaves meanwhile). */
  private claimed: HostedAudience | null = null;
  /** The broadcast hosted while the recording runs. */
  private hosted: HostedAudience | null = null;

  constructor(private readonly logger: Logger) {}

  /** The broadcast hosted now (null: none, or its recording is ending). */
  get current(): HostedAudience | null {
    return this.hosted;
  }

  /** A start claimed `host` (null: no claim, or the start failed and gives it back itself). */
  claim(host: HostedAudience | null): void {
    this.claimed = host;
  }

  /** The client left while its start was set up: the claimed broadcast is given back. */
  releaseClaim(): void {
    const claimed = this.claimed;
    this.claimed = null;
    if (claimed) this.background(claimed.release(), 'broadcast release');
  }

  /**
   * The recording runs: the claimed broadcast is hosted and subscribes to the session stream;
   * `revoked` and `lost` end the recording. Resolves with the detach function of its subscription.
   */
  host(host: HostedAudience, rec: Recording, revoked: () => void, lost: (error: AppError) => void): Promise<() => void> {
    this.hosted = host;
    this.claimed = null;
    return host.attach(
      {
        taskId: rec.taskId,
        subscribe: (l) => rec.events.attach(l),
        translate: (text, from, to) => rec.translateText(text, from, to),
        recordedMs: () => rec.durationMs,
      },
      revoked,
      lost,
    );
  }

  /** pause, resume or stop of the host, after the lifecycle accepted it. */
  control(action: 'pause' | 'resume' | 'stop'): void {
    if (this.hosted) this.background(this.hosted.control(action), `broadcast ${action}`);
  }

  /** The host's socket dropped: the viewers wait for the host. */
  hostDropped(): void {
    if (this.hosted) this.background(this.hosted.hostDropped(), 'broadcast freeze');
  }

  /** Shutdown: the broadcast is frozen now (it outlives this process; the host may start it again on another node). */
  async freeze(): Promise<void> {
    if (this.hosted) await this.hosted.hostDropped().catch((err) => this.logger.error({ err }, 'broadcast freeze'));
  }

  /** The recording is ending: the broadcast is no longer hosted; the caller ends it after the last finals. */
  take(): HostedAudience | null {
    const host = this.hosted;
    this.hosted = null;
    return host;
  }

  private background(p: Promise<unknown>, what: string): void {
    void p.catch((err) => this.logger.error({ err }, `${what} failed`));
  }
}
