/**
 * Live finals and their translations into the search index as they are said, so a word is
 * found within about a second of its final, not only once the session has stored its
 * sentences (src/realtime/finalize.ts writes them at the end). It observes the session
 * streams where they are published (src/stream: the node running the recording), so the
 * live code needs no change. Writes of one task go one after another, in event order (a
 * withdrawal after its final); a failed write is logged and the next final goes on. When the
 * session stores its sentences, the triggers replace these entries with the stored ones.
 */
import type { Logger } from 'pino';
import { type SessionEvent, startMsOf } from '../stream/events.js';
import type { SearchStore } from './store.js';

export class LiveSearchIndex {
  /** The tail of each task's write chain. */
  private readonly chains = new Map<string, Promise<void>>();
  /** Each running session's finals (time, speaker, language), which its translations and corrections share. */
  private readonly finals = new Map<
    string,
    Map<number, { startMs: number; endMs: number; speakerId: string | null; language: string | null }>
  >();

  constructor(
    private readonly store: SearchStore,
    private readonly logger: Logger,
  ) {}

  /** The session observer (SessionStreams): finals and final translations only. */
  readonly observe = (e: SessionEvent): void => {
    if (e.event === 'result' && e.data.origin.is_final) {
      const o = e.data.origin;
      const startMs = startMsOf(o);
      const endMs = Math.max(startMs, o.end_ms);
      const finals = this.finals.get(e.task_id) ?? new Map();
      this.finals.set(
        e.task_id,
        finals.set(o.sid, { startMs, endMs, speakerId: o.speaker_id, language: o.detected_language ?? o.language }),
      );
      this.enqueue(e.task_id, () =>
        this.store.indexLive(e.task_id, {
          sid: o.sid,
          text: o.text,
          language: o.detected_language ?? o.language,
          speakerId: o.speaker_id,
          startMs,
          endMs,
        }),
      );
    } else if (e.event === 'translation' && e.data.is_final) {
      const t = e.data;
      const final = this.finals.get(e.task_id)?.get(t.sid) ?? { startMs: 0, endMs: 0, speakerId: null };
      this.enqueue(e.task_id, () =>
        this.store.indexLive(e.task_id, { sid: t.sid, text: t.text, ...final, language: t.language }, { language: t.language }),
      );
    } else if (e.event === 'sentence_corrected') {
      // A correction replaces the sentence's entries: the old words are no longer found.
      const c = e.data;
      const final = this.finals.get(e.task_id)?.get(c.sid) ?? {
        startMs: startMsOf(c),
        endMs: startMsOf(c),
        speakerId: c.speaker_id,
        language: null,
      };
      this.enqueue(e.task_id, () => this.store.indexLive(e.task_id, { sid: c.sid, text: c.text, ...final }));
      for (const [language, text] of Object.entries(c.translations))
        this.enqueue(e.task_id, () => this.store.indexLive(e.task_id, { sid: c.sid, text, ...final, language }, { language }));
    } else if (e.event === 'status' && e.data.status === 'ended') {
      this.finals.delete(e.task_id);
    }
  };

  /** Resolves when the writes queued so far are done (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  private enqueue(taskId: string, write: () => Promise<void>): void {
    const next = (this.chains.get(taskId) ?? Promise.resolve())
      .then(write)
      .catch((err: unknown) => this.logger.warn({ err, task_id: taskId }, 'live search entry not written'));
    this.chains.set(taskId, next);
    void next.then(() => {
      if (this.chains.get(taskId) === next) this.chains.delete(taskId);
    });
  }
}
