/**
 * The caption sinks of one running broadcast, beside its host session (host-session.ts), on
 * the node that holds the host's connection: the recording's final sentences (the session
 * stream, once for the broadcast, never per viewer) go to every sink of their language. A
 * change of the sinks over REST (any node) is announced on the bus; the set reloads then.
 */
import type { Logger } from 'pino';
import type { Caption } from './protocol.js';
import { SinkRunner, type SinkRunnerDeps } from './runner.js';
import type { CaptionSinkStore } from './store.js';

export interface HostSinksDeps {
  store: CaptionSinkStore;
  /** Calls `handler` when the broadcast's sinks change (REST, any node); resolves to the unsubscribe. */
  onChanged(broadcastId: string, handler: () => void): Promise<() => void>;
  runner: Omit<SinkRunnerDeps, 'sourceLanguage'>;
  logger: Logger;
}

export class HostSinks {
  private readonly runners = new Map<string, SinkRunner>();
  private off: () => void = () => {};
  private closed = false;
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: HostSinksDeps,
    private readonly broadcastId: string,
    private readonly sourceLanguage: string,
  ) {}

  async start(): Promise<void> {
    this.off = await this.deps.onChanged(this.broadcastId, () => {
      this.loading = this.loading.then(() => this.load());
    });
    await this.load();
  }

  /** A final sentence of the source (language null) or of a translation language. */
  caption(language: string | null, caption: Caption): void {
    for (const r of this.runners.values()) if (r.language === language) r.add(caption);
  }

  /** Resolves once every caption handed over so far was delivered or given up (tests, the end). */
  async idle(): Promise<void> {
    await this.loading;
    await Promise.all([...this.runners.values()].map((r) => r.idle()));
  }

  /** The broadcast's recording ended here: no new captions; those waiting are still delivered. */
  close(): Promise<void> {
    this.closed = true;
    this.off();
    return this.idle();
  }

  private async load(): Promise<void> {
    if (this.closed) return;
    try {
      const sinks = await this.deps.store.list(this.broadcastId);
      for (const [id, r] of this.runners) {
        if (!sinks.some((s) => s.id === id)) {
          r.stop();
          this.runners.delete(id);
        }
      }
      for (const s of sinks) {
        const running = this.runners.get(s.id);
        if (running) running.update(s);
        else this.runners.set(s.id, new SinkRunner(s, { ...this.deps.runner, sourceLanguage: this.sourceLanguage }));
      }
    } catch (err) {
      this.deps.logger.warn({ err, broadcast_id: this.broadcastId }, 'caption sinks not loaded');
    }
  }
}
