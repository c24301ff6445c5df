/**
 * Interim translations for a broadcast's viewers (spec: "interim results (is_final false)
 * precede the final one"). The recording translates finals only; viewers of a broadcast also
 * see the sentence being spoken in their language. Runs on the host's node, once for every
 * viewer: the latest interim text of the current sentence is translated into each
 * translation language at most once per `intervalMs` (a new interim while a run is busy
 * replaces the waiting one), and an interim translation is never sent once its sentence's
 * final origin arrived (the final translations, made by the recording, follow it). Interims
 * go through the recording's own translator with the session glossary, as its finals do, so
 * an interim and its final agree on the glossary's terms.
 */

export interface InterimTranslationsDeps {
  languages: readonly string[];
  from: string;
  /** The recording's translator with its session glossary (Recording.translateText); a throw skips the language. */
  translate(text: string, from: string, to: string): Promise<string | null>;
  /** Sends one interim translation to viewers (the host session adds speaker fields). */
  publish(t: { sid: number; language: string; text: string }): Promise<void>;
  /** Whether captions flow now (live, not paused, host connected). */
  live(): boolean;
  intervalMs: number;
}

export class InterimTranslations {
  private waiting: { sid: number; text: string } | null = null;
  private busy = false;
  private lastRun = 0;
  private timer: NodeJS.Timeout | null = null;
  private newestFinalSid = 0;

  constructor(private readonly deps: InterimTranslationsDeps) {}

  /** An interim origin of sentence `sid`. */
  interim(sid: number, text: string): void {
    if (!this.deps.languages.length || !text.trim() || sid <= this.newestFinalSid) return;
    this.waiting = { sid, text };
    this.schedule();
  }

  /** The final origin of `sid`: its interim translations stop (the final ones follow). */
  finalOrigin(sid: number): void {
    this.newestFinalSid = Math.max(this.newestFinalSid, sid);
    if (this.waiting && this.waiting.sid <= sid) this.waiting = null;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.waiting = null;
  }

  private schedule(): void {
    if (this.busy || this.timer) return;
    const wait = Math.max(0, this.lastRun + this.deps.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run();
    }, wait);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    const job = this.waiting;
    this.waiting = null;
    if (!job || !this.deps.live()) return;
    this.busy = true;
    this.lastRun = Date.now();
    try {
      await Promise.all(
        this.deps.languages.map(async (to) => {
          const text = await this.deps.translate(job.text, this.deps.from, to).catch(() => null);
          if (!text || !this.deps.live() || job.sid <= this.newestFinalSid) return;
          await this.deps.publish({ sid: job.sid, language: to, text });
        }),
      );
    } finally {
      this.busy = false;
      if (this.waiting) this.schedule();
    }
  }
}
