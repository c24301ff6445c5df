/**
 * The catch-up summary of one broadcast, kept by the node that hosts it (one keeper a host
 * session, never one a viewer): it collects the live phase's final sentences, and every
 * `intervalMs` (when at least `minNewChars` of new text came), at a pause and when the host
 * drops, has the summarizer the engine layer picks summarize what was said since going live,
 * translates it into each translation language, and stores it for every node's viewer streams
 * (store.ts). Runs one at a time, off the caption path: a final only appends to a list.
 *
 * Rolling: while everything said fits in `maxInputChars` a run reads all of it; past that (or
 * once a host returned, its earlier sentences being on another recording), a run reads the
 * previous catch-up summary and the newest sentences, and keeps only what is not summarized yet.
 */
import type { Logger } from 'pino';
import type { Summarizer } from '../../engines/types.js';
import type { CatchUpStore } from './store.js';
import { CATCH_UP_TEMPLATE, summarySegments, translatedText, viewerText } from './text.js';

export interface CatchUpSettings {
  intervalMs: number;
  minNewChars: number;
  maxInputChars: number;
}

/** What every keeper of a process shares (built once by the broadcasts module). */
export interface CatchUpDeps {
  store: CatchUpStore;
  /** The summarizer the engine layer picks for built-in summaries in `language` (LLM or extractive), or null. */
  summarizer(language: string): Summarizer | null;
  /** Text in another language; null when no engine serves the pair. */
  translate(text: string, from: string, to: string): Promise<string | null>;
  settings: CatchUpSettings;
  now: () => Date;
  logger: Logger;
}

export interface KeeperScope {
  broadcastId: string;
  /** The language spoken (the first transcription language): the summary is written in it. */
  source: string;
  /** The translation languages: each gets the summary translated. */
  targets: readonly string[];
  /** Whether the host switched catch-up on (read at each run: the host may change it while live). */
  enabled(): Promise<boolean>;
  /** Whether this host session still holds the broadcast (a lost lease stops its writes). */
  holds(): boolean;
}

interface Sentence {
  atMs: number;
  text: string;
}

const chars = (s: string) => [...s].length;

export class CatchUpKeeper {
  /** Final sentences of the live phase not yet dropped (all of them while the input fits). */
  private sentences: Sentence[] = [];
  /** Characters of `sentences`. */
  private held = 0;
  /** How many of `sentences` the stored summary covers. */
  private summarized = 0;
  /** The newest stored summary in the source language and where it starts. */
  private last: { text: string; coversFromMs: number } | null = null;
  /** Reads the previous summary instead of every sentence (over the input limit, or after a host return). */
  private rolling = false;
  private revision = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private runs: Promise<void> = Promise.resolve();
  private queued = false;
  private warnedNoSummarizer = false;

  constructor(
    private readonly deps: CatchUpDeps,
    private readonly scope: KeeperScope,
  ) {}

  /** Picks up the broadcast's stored summary (a host that returns continues it), then runs on the interval. */
  async start(): Promise<void> {
    this.timer = setInterval(() => void this.request(false), this.deps.settings.intervalMs);
    this.timer.unref();
    try {
      const stored = await this.deps.store.get(this.scope.broadcastId);
      if (stored) this.adopt(stored.revision, stored.texts[stored.sourceLanguage] ?? null, stored.coversFromMs);
    } catch (err) {
      // The first write then finds the stored one (a revision conflict) and goes on from it.
      this.deps.logger.warn({ err, broadcast_id: this.scope.broadcastId }, 'stored catch-up summary not read');
    }
  }

  /** A final sentence of the live phase, `atMs` from going live (the viewers' start_time). */
  add(atMs: number, text: string): void {
    if (this.stopped || !text.trim()) return;
    this.sentences.push({ atMs, text: text.trim() });
    this.held += chars(text.trim());
    // Runs that cannot happen (the host switched catch-up off, no summarizer) must not let a long
    // broadcast's text pile up: past twice what a run reads, the oldest go (a run would not read them).
    const max = this.deps.settings.maxInputChars;
    if (this.held > 2 * max) {
      while (this.held > max && this.sentences.length > 1) {
        this.held -= chars(this.sentences.shift()!.text);
        this.summarized = Math.max(0, this.summarized - 1);
      }
      this.rolling = true;
    }
  }

  /** A phase change (pause, the host dropped): a summary now if anything new was said. */
  refresh(): Promise<void> {
    return this.request(true);
  }

  /** No more runs after the ones asked for (the host session is over). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private request(force: boolean): Promise<void> {
    if (this.stopped && !force) return this.runs;
    if (this.queued) return this.runs;
    this.queued = true;
    this.runs = this.runs.then(async () => {
      this.queued = false;
      try {
        await this.once(force);
      } catch (err) {
        this.deps.logger.warn({ err, broadcast_id: this.scope.broadcastId }, 'catch-up summary not written');
      }
    });
    return this.runs;
  }

  private async once(force: boolean): Promise<void> {
    const fresh = this.sentences.slice(this.summarized);
    if (fresh.length === 0) return;
    const freshChars = fresh.reduce((n, s) => n + chars(s.text), 0);
    if (!force && freshChars < this.deps.settings.minNewChars) return;
    if (!this.scope.holds() || !(await this.scope.enabled())) return;
    const summarizer = this.deps.summarizer(this.scope.source);
    if (!summarizer) {
      if (!this.warnedNoSummarizer) this.deps.logger.warn({ language: this.scope.source }, 'no summarizer here: no catch-up summaries');
      this.warnedNoSummarizer = true;
      return;
    }
    const input = this.input(fresh);
    const result = await summarizer.summarize({
      segments: input.segments,
      language: this.scope.source,
      template: CATCH_UP_TEMPLATE,
      plainText: false,
    });
    const text = viewerText(result.text);
    if (!text) return;
    const texts: Record<string, string> = { [this.scope.source]: text };
    for (const to of this.scope.targets) {
      if (to === this.scope.source) continue;
      const from = this.scope.source;
      const t = await translatedText(text, (line) => this.deps.translate(line, from, to).catch(() => null));
      if (t) texts[to] = t;
    }
    if (!this.scope.holds()) return;
    const next = {
      sourceLanguage: this.scope.source,
      texts,
      coversFromMs: input.coversFromMs,
      coversToMs: fresh.at(-1)!.atMs,
      engine: summarizer.id,
      generatedAt: this.deps.now().toISOString(),
    };
    let revision = await this.deps.store.replace(this.scope.broadcastId, this.revision, next);
    if (revision === null) {
      const now = await this.deps.store.get(this.scope.broadcastId);
      // Written by another host session since: go on from its summary (this one is dropped).
      if (now) return this.adopt(now.revision, now.texts[now.sourceLanguage] ?? null, now.coversFromMs);
      // Removed (the host switched catch-up off, then on again): this one is the first again.
      revision = await this.deps.store.replace(this.scope.broadcastId, 0, next);
      if (revision === null) return;
    }
    this.revision = revision;
    this.last = { text, coversFromMs: input.coversFromMs };
    const covered = this.summarized + fresh.length;
    if (this.rolling) {
      // The summary stands for what it covered: only the sentences after it are kept.
      this.sentences = this.sentences.slice(covered);
      this.held = this.sentences.reduce((n, x) => n + chars(x.text), 0);
      this.summarized = 0;
    } else this.summarized = covered;
  }

  /** What one run reads: everything said while it fits, else the previous summary and the newest sentences. */
  private input(fresh: Sentence[]): { segments: string[]; coversFromMs: number } {
    const max = this.deps.settings.maxInputChars;
    if (!this.rolling && this.held <= max) return { segments: this.sentences.map((s) => s.text), coversFromMs: this.sentences[0]!.atMs };
    this.rolling = true;
    const earlier = this.last ? summarySegments(this.last.text) : [];
    let budget = max - earlier.reduce((n, s) => n + chars(s), 0);
    const newest: Sentence[] = [];
    for (let i = fresh.length - 1; i >= 0; i--) {
      const n = chars(fresh[i]!.text);
      if (newest.length > 0 && n > budget) break;
      newest.unshift(fresh[i]!);
      budget -= n;
    }
    return { segments: [...earlier, ...newest.map((s) => s.text)], coversFromMs: this.last?.coversFromMs ?? newest[0]!.atMs };
  }

  private adopt(revision: number, text: string | null, coversFromMs: number): void {
    this.revision = revision;
    this.last = text ? { text, coversFromMs } : null;
    this.rolling = this.last !== null;
    // Sentences of this session are summarized afresh on top of the stored summary.
    this.summarized = 0;
  }
}
