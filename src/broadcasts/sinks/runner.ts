/**
 * Delivery to one caption sink, on the node that hosts the broadcast. Captions are posted in
 * the order they were spoken, one POST at a time (the next waits for the previous to succeed
 * or be given up), each POST with the next `seq`; a failed POST is retried with the same
 * `seq` and body under the project's one retry policy (src/platform/retry.ts: full-jitter
 * exponential backoff, a server's Retry-After honoured). Every failure is retried (Zoom asks
 * for it, and a caption platform that refuses now may accept once its stream starts); after
 * the last attempt those captions are dropped and the next go on with a new `seq`. Each
 * outcome is written to the sink's status row.
 */
import type { Logger } from 'pino';
import { type Backoff, parseRetryAfter, retry } from '../../platform/retry.js';
import type { SendResult } from '../../webhooks/sender.js';
import { batchSize, type Caption, captionBody, captionUrl } from './protocol.js';
import type { CaptionSink, SinkReport } from './store.js';

/** Captions that may wait for a slow or failing sink; older ones are dropped (late captions are of no use). */
export const SINK_BACKLOG = 50;

export interface SinkRunnerDeps {
  post(url: string, body: string): Promise<SendResult>;
  report(id: string, r: SinkReport): Promise<void>;
  attempts: number;
  backoff: Backoff;
  /** The language of the source text (Zoom's `lang` for a sink without a translation language). */
  sourceLanguage: string;
  now: () => Date;
  logger: Logger;
}

class SinkPostError extends Error {
  readonly retryable = true;
  readonly retryAfterMs?: number;
  constructor(r: SendResult) {
    super(r.error ?? `HTTP ${r.statusCode}`);
    this.retryAfterMs = parseRetryAfter(r.retryAfter);
  }
}

export class SinkRunner {
  private readonly queue: Caption[] = [];
  private seq: number;
  private lastAt = 0;
  private draining: Promise<void> | null = null;
  private readonly abort = new AbortController();
  /** Status writes, one after the other (a quick retry must not overwrite the success that followed it). */
  private reports: Promise<void> = Promise.resolve();

  constructor(
    private sink: CaptionSink,
    private readonly deps: SinkRunnerDeps,
  ) {
    this.seq = sink.seqUsed;
  }

  get id(): string {
    return this.sink.id;
  }

  get language(): string | null {
    return this.sink.language;
  }

  /** Region and line length may change while it runs (the same sink listed again). */
  update(sink: CaptionSink): void {
    this.sink = { ...sink, seqUsed: this.seq };
  }

  /** A final caption for this sink. Times never go back (a platform orders captions by them). */
  add(caption: Caption): void {
    if (this.abort.signal.aborted || !caption.text.trim()) return;
    const at = Math.max(caption.at.getTime(), this.lastAt);
    this.lastAt = at;
    this.queue.push({ text: caption.text, at: new Date(at) });
    if (this.queue.length > SINK_BACKLOG) {
      const dropped = this.queue.splice(0, this.queue.length - SINK_BACKLOG).length;
      void this.report({ outcome: 'dropped', captions: dropped, at: this.deps.now() });
    }
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
  }

  /** Resolves once every caption added so far was delivered or given up. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
    await this.reports;
  }

  /** The sink was removed: nothing more is sent (a POST under way finishes). */
  stop(): void {
    this.queue.length = 0;
    this.abort.abort(new Error('caption sink removed'));
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.abort.signal.aborted) {
      await this.deliver(this.queue.splice(0, batchSize(this.sink.kind)));
    }
  }

  private async deliver(batch: Caption[]): Promise<void> {
    const seq = ++this.seq;
    const s = this.sink;
    const url = captionUrl(s.kind, s.url, seq, s.language ?? this.deps.sourceLanguage);
    const body = captionBody({ kind: s.kind, region: s.region, lineLength: s.lineLength }, batch);
    try {
      await retry(
        async () => {
          const r = await this.deps.post(url, body);
          if (!r.ok) throw new SinkPostError(r);
        },
        {
          attempts: this.deps.attempts,
          backoff: this.deps.backoff,
          signal: this.abort.signal,
          onRetry: ({ error }) => void this.report({ outcome: 'retrying', seq, error: (error as Error).message, at: this.deps.now() }),
        },
      );
      await this.report({ outcome: 'sent', seq, captions: batch.length, at: this.deps.now() });
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message, sink_id: s.id, kind: s.kind, seq }, 'captions not delivered to sink');
      await this.report({ outcome: 'failed', seq, captions: batch.length, error: (err as Error).message, at: this.deps.now() });
    }
  }

  private report(r: SinkReport): Promise<void> {
    const id = this.sink.id;
    this.reports = this.reports.then(() =>
      this.deps.report(id, r).catch((err: unknown) => this.deps.logger.warn({ err, sink_id: id }, 'caption sink status not saved')),
    );
    return this.reports;
  }
}
