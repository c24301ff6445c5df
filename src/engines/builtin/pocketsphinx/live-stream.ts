/** One PocketSphinx live stream (streaming.ts describes how its interims and finals are made). */
import { EngineError } from '../../errors.js';
import type { RecognizerStream, StreamingSttOptions, SttResult, VadEvent, VoiceActivityDetector } from '../../types.js';
import type { DecoderPool } from './decoder-pool.js';
import type { PsDecoder, Vocabulary } from './native.js';
import {
  ENDPOINT_SILENCE_MS,
  INTERIM_EVERY_MS,
  KEEP_IN_SILENCE_MS,
  MAX_UTTERANCE_MS,
  PIECE_SAMPLES,
  PRIME_AFTER_MS,
} from './stream-tuning.js';
import { AudioTail, decodeOnPool, decodeUtterance, RATE, SEGMENT_PAD_MS, type Speech, toFloat32 } from './utterance.js';
import { vocabularyFor } from './vocabulary.js';

/**
 * One live stream: the stream decoder is always inside an utterance; VAD endpoints close it.
 * An interim goes out as soon as the hypothesis changes (at most once per 100 ms piece), and
 * at least every 200 ms of audio while there is text.
 */
export class PocketSphinxStream implements RecognizerStream {
  private queue: Promise<void> = Promise.resolve();
  private readonly vadStream;
  private readonly audio = new AudioTail();
  private fedMs = 0;
  private utteranceStartMs = 0;
  /** Where the VAD heard speech begin in the current utterance (its early estimate). */
  private speechStartMs: number | null = null;
  private speaking = false;
  private sinceInterimMs = 0;
  private lastInterim = '';
  /** Finals being decoded, delivered in order. */
  private finalsChain: Promise<void> = Promise.resolve();
  private finalsPending = 0;
  /** Pending finals of utterances that showed no interim: interims wait behind them (heldInterim). */
  private unshownPending = 0;
  private heldInterim: SttResult | null = null;
  /** Terms from setTerms, taken on at the next utterance. */
  private nextVocabulary: Vocabulary | null = null;
  private inUtterance = false;
  private done = false;
  private failed = false;
  /** Samples accepted and not yet through the stream decoder, and samples of finals not yet decoded (the backlog). */
  private queuedSamples = 0;
  private finalsSamples = 0;
  /** Set while audio is dropped because the backlog passed options.maxBacklogMs. */
  private dropping = false;
  /** The last chunk was skipped (the utterance before the gap is already closed). */
  private inGap = false;
  /** The stream decoder's cepstral mean comes from this stream's audio (primeCepstralMean). */
  private cepstralPrimed = false;
  /** The current utterance's number (SttResult.utterance); a refresh of an utterance already closed is dropped. */
  private utteranceSeq = 0;
  private refreshing = false;
  private lastRefreshMs = 0;
  /** The latest refresh of the current utterance (finalize clears it), and how many stream words it stands for. */
  private refreshed: { words: string[]; streamWords: number } | null = null;

  constructor(
    private decoder: PsDecoder,
    private readonly pool: DecoderPool,
    private readonly finals: DecoderPool,
    vad: VoiceActivityDetector,
    private readonly options: StreamingSttOptions,
    private vocabulary: Vocabulary,
    private readonly refreshEveryMs: number,
  ) {
    this.vadStream = vad.openStream();
    this.enqueue(async () => {
      decoder.forgetCepstralHistory();
      await decoder.startUtterance();
    });
    this.inUtterance = true;
  }

  write(pcm: Int16Array): void {
    if (this.done || this.failed || pcm.length === 0) return;
    const chunk = pcm.slice(); // the caller may reuse its buffer
    const events = this.vadStream.write(toFloat32(chunk));
    if (this.overBacklog()) {
      this.skip(chunk);
      return;
    }
    this.inGap = false;
    this.queuedSamples += chunk.length;
    this.enqueue(async () => {
      this.audio.push(chunk);
      for (let at = 0; at < chunk.length; at += PIECE_SAMPLES) {
        const piece = chunk.subarray(at, at + PIECE_SAMPLES);
        await this.decoder.process(piece);
        this.queuedSamples -= piece.length;
        const ms = (piece.length / RATE) * 1000;
        this.fedMs += ms;
        this.sinceInterimMs += ms;
        // Every endpoint the VAD found in this chunk closes an utterance, at the latest when the chunk ends.
        const last = at + PIECE_SAMPLES >= chunk.length;
        if (await this.takeEvents(events, last)) continue;
        if (!this.cepstralPrimed && this.speechStartMs !== null && this.fedMs - this.speechStartMs >= PRIME_AFTER_MS)
          await this.primeCepstralMean(this.speechStartMs);
        if (this.fedMs - this.utteranceStartMs >= MAX_UTTERANCE_MS) await this.finalize(this.speechSoFar(), true);
        else if (this.options.interimResults) {
          this.interim();
          this.maybeRefresh();
        }
      }
      if (!this.speaking) this.audio.dropBefore(this.fedMs - KEEP_IN_SILENCE_MS);
    });
  }

  /**
   * Whether new audio must be dropped: the backlog is past the limit, or (while dropping) not
   * yet back under half of it, so a stream at the edge does not flip with every chunk.
   */
  private overBacklog(): boolean {
    const limitMs = this.options.maxBacklogMs;
    if (limitMs === undefined) return false;
    const backlogMs = ((this.queuedSamples + this.finalsSamples) / RATE) * 1000;
    const over = this.dropping ? backlogMs > limitMs / 2 : backlogMs > limitMs;
    if (over && !this.dropping) this.options.onAudioDropped?.({ backlogMs: Math.round(backlogMs), limitMs });
    this.dropping = over;
    return over;
  }

  /**
   * Audio that is not recognized still takes its time on the stream's clock (later results
   * keep the recording's timeline): the utterance in progress is closed first (its words so
   * far become a final), then the clock moves past the chunk and the VAD's view of it is
   * forgotten; speech that goes on after the gap starts a new utterance.
   */
  private skip(chunk: Int16Array): void {
    const first = !this.inGap;
    this.inGap = true;
    this.enqueue(async () => {
      if (first) await this.finalize(this.speechSoFar(), true);
      this.audio.push(chunk);
      this.fedMs += (chunk.length / RATE) * 1000;
      this.utteranceStartMs = this.fedMs;
      this.speechStartMs = null;
      this.speaking = false;
      this.sinceInterimMs = 0;
      this.audio.dropBefore(this.fedMs - KEEP_IN_SILENCE_MS);
    });
  }

  /**
   * The stream decoder's running cepstral mean starts from the model's default (or from
   * whatever the pooled decoder heard last), far from most microphones: jfk's energy term is
   * 62 against the default's 41, and its first utterance then came out as "and i got my alma
   * mater" for "and so my fellow americans". The library updates that mean only when an
   * utterance ends, so the first utterance of every stream was decoded with the wrong one.
   * Once the first utterance has PRIME_AFTER_MS of speech, its audio so far (from the speech
   * start, with the file path's pad) is fed again twice: once to sum its cepstra, then, with
   * their mean adopted, to decode it. Costs about 2 x 1 s of stream decoding once per stream.
   */
  private async primeCepstralMean(speechStartMs: number): Promise<void> {
    this.cepstralPrimed = true;
    const pcm = this.audio.slice(Math.max(this.audio.startMs, speechStartMs - SEGMENT_PAD_MS), this.fedMs);
    for (const adopt of [false, true]) {
      if (adopt) this.decoder.adoptCepstralMeanSoFar();
      else this.decoder.forgetCepstralHistory();
      await this.decoder.endUtterance();
      await this.decoder.startUtterance();
      for (let at = 0; at < pcm.length; at += PIECE_SAMPLES) await this.decoder.process(pcm.subarray(at, at + PIECE_SAMPLES));
    }
  }

  setTerms(terms: readonly string[]): void {
    void vocabularyFor(terms).then(
      (v) => {
        this.nextVocabulary = v;
      },
      () => {}, // no pronunciations: the terms stay as they were
    );
  }

  /** Handles the VAD events due by now; true when an utterance was closed. */
  private async takeEvents(events: VadEvent[], last: boolean, reopen = true): Promise<boolean> {
    let closed = false;
    while (events.length > 0) {
      const e = events[0]!;
      if (e.type === 'speech_start') {
        events.shift();
        this.speaking = true;
        this.speechStartMs ??= e.atMs;
        continue;
      }
      if (this.fedMs < e.atMs + ENDPOINT_SILENCE_MS && !last) break;
      events.shift();
      this.speaking = false;
      await this.finalize({ startMs: e.startMs ?? this.speechStartMs ?? this.utteranceStartMs, endMs: e.atMs }, reopen);
      closed = true;
    }
    return closed;
  }

  /** The speech of the current utterance up to now (an utterance forced to end). */
  private speechSoFar(): Speech | null {
    return this.speaking ? { startMs: this.speechStartMs ?? this.utteranceStartMs, endMs: this.fedMs } : null;
  }

  /**
   * Interims from the stream decoder alone differ from the final on about a fifth of its words
   * (one pass, no second pass or best path, a running cepstral mean): those words showed only
   * with the final, seconds after they were spoken. So every refreshEveryMs of speech the
   * utterance so far is decoded as the final will be (file configuration) by an idle finals
   * decoder, and later interims show that text followed by the stream decoder's newer words.
   * Only while no final of this stream is pending and another finals decoder stays idle, so
   * finals never wait for it; under load refreshes are simply skipped.
   */
  private maybeRefresh(): void {
    if (this.refreshEveryMs <= 0 || this.refreshing || this.finalsPending > 0 || !this.speaking || this.speechStartMs === null) return;
    if (this.fedMs - Math.max(this.lastRefreshMs, this.speechStartMs) < this.refreshEveryMs) return;
    const decoder = this.finals.acquireIfIdle('file', this.vocabulary, 1);
    if (!decoder) return;
    this.refreshing = true;
    this.lastRefreshMs = this.fedMs;
    const seq = this.utteranceSeq;
    const streamWords = this.decoder.hypothesis().split(' ').filter(Boolean).length;
    const fromMs = Math.max(this.audio.startMs, this.speechStartMs - SEGMENT_PAD_MS);
    const pcm = this.audio.slice(fromMs, this.fedMs);
    void decodeUtterance(decoder, pcm, Math.round(fromMs))
      .then((words) => {
        // Shown from the stream's queue: the stream decoder is read between its decoding calls only.
        this.enqueue(async () => {
          if (seq !== this.utteranceSeq || !words.length) return;
          this.refreshed = { words: words.map((w) => w.text), streamWords };
          this.interim();
        });
      })
      .catch(() => {}) // a refresh is an improvement only: the final still comes
      .finally(() => {
        this.finals.release(decoder);
        this.refreshing = false;
      });
  }

  private interim(): void {
    if (this.failed) return;
    let text = this.decoder.hypothesis();
    const refreshed = this.refreshed;
    if (refreshed) text = [...refreshed.words, ...text.split(' ').filter(Boolean).slice(refreshed.streamWords)].join(' ');
    if (!text || (text === this.lastInterim && this.sinceInterimMs < INTERIM_EVERY_MS)) return;
    this.lastInterim = text;
    this.sinceInterimMs = 0;
    const result: SttResult = {
      text,
      isFinal: false,
      startMs: Math.round(this.utteranceStartMs),
      endMs: Math.round(this.fedMs),
      utterance: this.utteranceSeq,
    };
    if (this.mustHold()) this.heldInterim = result;
    else this.options.onResult(result);
  }

  /** Interims of the current utterance wait while an earlier one may still take a sentence number first. */
  private mustHold(): boolean {
    return this.unshownPending > 0 || (this.options.inUtteranceOrder === true && this.finalsPending > 0);
  }

  private enqueue(task: () => Promise<void>): void {
    // After abort() (or a failure) the audio still queued is not decoded: no result may follow.
    this.queue = this.queue.then(() => (this.failed ? undefined : task())).catch((err: unknown) => this.fail(err));
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.options.onError(
      new EngineError('stt_connection_lost', `PocketSphinx failed: ${String(err)}`, { cause: err, engineId: 'builtin/pocketsphinx' }),
    );
  }

  /**
   * Ends the stream decoder's utterance and opens the next one (taking on new terms there),
   * and sends the utterance's speech to be decoded as its final.
   */
  private async finalize(speech: Speech | null, reopen: boolean): Promise<void> {
    // An utterance's end updates the running mean from its frames: primed from here on.
    if (speech) this.cepstralPrimed = true;
    const utterance = this.utteranceSeq++;
    // An interim of this utterance still held goes out just before its own final (none of its
    // interims went out yet: holding only ever starts before an utterance's first interim).
    const held = this.heldInterim;
    this.heldInterim = null;
    const shown = this.lastInterim !== '' && held === null;
    this.refreshed = null;
    this.lastRefreshMs = 0;
    if (this.inUtterance) await this.decoder.endUtterance();
    this.inUtterance = false;
    this.utteranceStartMs = this.fedMs;
    this.speechStartMs = null;
    this.sinceInterimMs = 0;
    this.lastInterim = '';
    if (reopen) {
      this.takeVocabulary();
      await this.decoder.startUtterance();
      this.inUtterance = true;
    }
    if (!speech && !shown) return;
    const fromMs = speech ? Math.max(this.audio.startMs, speech.startMs - SEGMENT_PAD_MS) : this.fedMs;
    const pcm = speech ? this.audio.slice(fromMs, Math.min(this.fedMs, speech.endMs + SEGMENT_PAD_MS)) : new Int16Array(0);
    if (speech) this.audio.dropBefore(speech.endMs);
    this.decodeFinal({ pcm, fromMs, utterance, shown, held });
  }

  /**
   * New terms, for the finals; the stream decoder (interims) learns them only if it has no
   * words of its own yet: PocketSphinx allows only a few added words per decoder
   * (vocabulary.ts) and a decoder never forgets one.
   */
  private takeVocabulary(): void {
    const next = this.nextVocabulary;
    if (!next) return;
    this.nextVocabulary = null;
    if (next.key === this.vocabulary.key) return;
    if (this.decoder.vocabularyKey === '') this.decoder.addVocabulary(next);
    this.vocabulary = next;
  }

  /**
   * Decodes an utterance's audio as its final, delivered after the earlier finals. An utterance
   * that showed interims and comes to no words (noise the stream decoder took for words, or
   * no audio at all) ends with a final of empty text, so its sentence is withdrawn.
   */
  private decodeFinal(u: { pcm: Int16Array; fromMs: number; utterance: number; shown: boolean; held: SttResult | null }): void {
    const { pcm, fromMs, utterance, shown, held } = u;
    this.finalsPending++;
    if (!shown) this.unshownPending++;
    this.finalsSamples += pcm.length;
    const vocabulary = this.vocabulary;
    const words = decodeOnPool(this.finals, pcm, Math.round(fromMs), vocabulary);
    this.finalsChain = this.finalsChain.then(async () => {
      try {
        const got = await words;
        if (this.failed) return;
        if (got.length && held) this.options.onResult(held);
        if (got.length)
          this.options.onResult({
            text: got.map((w) => w.text).join(' '),
            isFinal: true,
            startMs: got[0]!.startMs,
            endMs: got[got.length - 1]!.endMs,
            words: got,
            utterance,
          });
        else if (shown) {
          const at = Math.round(fromMs);
          this.options.onResult({ text: '', isFinal: true, startMs: at, endMs: at + Math.round((pcm.length / RATE) * 1000), utterance });
        }
      } catch (err) {
        this.fail(err);
      } finally {
        this.finalsPending--;
        if (!shown) this.unshownPending--;
        this.finalsSamples -= pcm.length;
        const waiting = this.heldInterim;
        if (!this.mustHold() && waiting && !this.failed) {
          this.heldInterim = null;
          this.options.onResult(waiting);
        }
      }
    });
  }

  async end(): Promise<void> {
    if (this.done) {
      await this.queue;
      await this.finalsChain;
      return;
    }
    this.done = true;
    const tail = this.vadStream.flush();
    this.enqueue(async () => {
      await this.takeEvents(tail, true, false);
      await this.finalize(this.speechSoFar(), false);
    });
    await this.queue;
    this.heldInterim = null; // the stream ends with its finals
    await this.finalsChain;
    this.pool.release(this.decoder);
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    this.failed = true;
    void this.queue.then(async () => {
      if (this.inUtterance) await this.decoder.endUtterance().catch(() => {});
      this.inUtterance = false;
      this.pool.release(this.decoder);
    });
  }
}
