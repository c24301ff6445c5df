/** The pool of PocketSphinx decoders (native.ts) both recognizers share. */
import { type DecoderOptions, type DecoderProfile, MODEL_DIR, NO_VOCABULARY, PsDecoder, type Vocabulary } from './native.js';

interface Waiter {
  profile: DecoderProfile;
  vocabulary: Vocabulary;
  resolve: (d: PsDecoder) => void;
  reject: (err: unknown) => void;
}

/**
 * A small pool: decoders of both profiles are created on demand up to `size` in all and
 * reused by jobs of the same profile and vocabulary. A decoder without a vocabulary takes
 * one on when a job needs it; after that it serves only that vocabulary. When the pool is
 * full and only unsuitable decoders are idle, one of them is freed to make room (a decoder
 * loads in a fraction of a second).
 */
export class DecoderPool {
  private readonly idle: PsDecoder[] = [];
  private readonly waiters: Waiter[] = [];
  /** Decoders alive or being loaded. */
  private created = 0;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly modelDir = MODEL_DIR,
    private readonly options: DecoderOptions = {},
  ) {}

  /** `signal` gives up waiting (the waiter is removed, so a later release is not lost to it). */
  async acquire(profile: DecoderProfile = 'file', signal?: AbortSignal, vocabulary: Vocabulary = NO_VOCABULARY): Promise<PsDecoder> {
    if (this.closed) throw new Error('pool closed');
    const at = this.idle.findLastIndex((d) => this.fits(d, profile, vocabulary));
    if (at >= 0) {
      const d = this.idle.splice(at, 1)[0]!;
      this.prepare(d, vocabulary);
      return d;
    }
    if (this.created >= this.size) {
      // Free the least useful idle decoder: one with another vocabulary first.
      const victim = this.idle.findIndex((d) => d.vocabularyKey !== '');
      const other = this.idle.splice(Math.max(victim, 0), 1)[0];
      if (!other) {
        return new Promise((resolve, reject) => {
          const waiter: Waiter = { profile, vocabulary, resolve, reject };
          this.waiters.push(waiter);
          signal?.addEventListener(
            'abort',
            () => {
              const at = this.waiters.indexOf(waiter);
              if (at < 0) return; // already served
              this.waiters.splice(at, 1);
              reject(signal.reason);
            },
            { once: true },
          );
        });
      }
      this.destroy(other);
    }
    return this.create(profile, vocabulary);
  }

  /**
   * An idle decoder for the job, only when more than `spare` suitable ones are idle (work that
   * may be skipped must not take the last decoder a waiting job would need); null otherwise.
   */
  acquireIfIdle(profile: DecoderProfile, vocabulary: Vocabulary, spare: number): PsDecoder | null {
    if (this.closed || this.waiters.length > 0) return null;
    const suitable = this.idle.filter((d) => this.fits(d, profile, vocabulary));
    if (suitable.length <= spare) return null;
    const d = suitable[suitable.length - 1]!;
    this.idle.splice(this.idle.indexOf(d), 1);
    try {
      this.prepare(d, vocabulary);
    } catch {
      this.destroy(d); // it could not take the vocabulary: not handed out, not kept
      return null;
    }
    return d;
  }

  /**
   * Loads decoders of `profile` until `count` are idle (at most the pool's size), so the
   * first jobs do not wait for a load.
   */
  async preload(profile: DecoderProfile, count: number): Promise<void> {
    const loading: Array<Promise<PsDecoder>> = [];
    const idle = this.idle.filter((d) => d.profile === profile && d.vocabularyKey === '').length;
    for (let i = idle; i < count && this.created < this.size; i++) loading.push(this.create(profile, NO_VOCABULARY));
    for (const d of await Promise.all(loading)) this.release(d);
  }

  release(d: PsDecoder): void {
    if (this.closed) {
      this.destroy(d);
      return;
    }
    const same = this.waiters.findIndex((w) => this.fits(d, w.profile, w.vocabulary));
    if (same >= 0) {
      const w = this.waiters.splice(same, 1)[0]!;
      try {
        this.prepare(d, w.vocabulary);
      } catch (err) {
        this.destroy(d);
        w.reject(err);
        return;
      }
      w.resolve(d);
      return;
    }
    const other = this.waiters.shift();
    if (other) {
      this.destroy(d);
      this.create(other.profile, other.vocabulary).then(other.resolve, other.reject);
      return;
    }
    this.idle.push(d);
  }

  close(): void {
    this.closed = true;
    for (const d of this.idle.splice(0)) this.destroy(d);
    for (const w of this.waiters.splice(0)) w.reject(new Error('pool closed'));
  }

  /**
   * Whether idle `d` can serve a job: same profile and, for a vocabulary, a decoder that has
   * it or an own-LM decoder without words (it learns them); any decoder without words serves
   * a job without vocabulary.
   */
  private fits(d: PsDecoder, profile: DecoderProfile, vocabulary: Vocabulary): boolean {
    if (d.profile !== profile) return false;
    if (d.vocabularyKey === vocabulary.key) return true;
    return d.vocabularyKey === '';
  }

  /** A fresh audio stream (noise and cepstral statistics reset) and the job's vocabulary. */
  private prepare(d: PsDecoder, vocabulary: Vocabulary): void {
    d.startStream();
    if (d.vocabularyKey !== vocabulary.key) d.addVocabulary(vocabulary);
  }

  private async create(profile: DecoderProfile, vocabulary: Vocabulary): Promise<PsDecoder> {
    this.created++;
    let d: PsDecoder | undefined;
    try {
      d = await PsDecoder.create(this.modelDir, profile, this.options);
      if (vocabulary.key) d.addVocabulary(vocabulary);
      return d;
    } catch (err) {
      d?.free();
      this.created--;
      throw err;
    }
  }

  private destroy(d: PsDecoder): void {
    d.free();
    this.created--;
  }
}
