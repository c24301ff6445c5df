/**
 * Live captions from a file recognizer (Whisper-class servers, SenseVoice, ...), the way
 * WhisperLive and whisper_streaming do it:
 * - the VAD cuts the stream into utterances;
 * - while an utterance grows, it is re-transcribed whole every `intervalMs` of new audio;
 *   the words two consecutive passes agree on (a common prefix) are committed and sent as
 *   the interim text, whose committed words never change (interim-text.ts: after them, the
 *   latest pass's further words as a tentative tail);
 * - the utterance's end (VAD speech end, `end()`, or `maxUtteranceMs` reached) is
 *   transcribed once more and sent as the final;
 * - at most one interim pass per stream is in flight: it is skipped while another pass runs
 *   (the next one simply covers more audio). A slow recognizer therefore gives fewer interims,
 *   never a growing backlog. A final is asked for as soon as its utterance ends, beside the
 *   draft in flight (after the final before it, if that one is still out: at most two passes
 *   of a stream in flight); results are emitted in order, and a draft whose final came back
 *   first is cancelled and dropped (every pass names the stream, so the engine host drops a
 *   stream's queued drafts when its final comes).
 * Every pass sends at most `maxUtteranceMs` of audio (plus the padding before the VAD start).
 * multi_language (`options.languages`): each pass asks the file recognizer to tell the
 * language among them; results carry it as `detectedLanguage`, and the language last heard is
 * the fallback of the next pass (a recognizer that hears none of them recognizes in it).
 */
import { randomUUID } from 'node:crypto';
import { copyRange } from '../audio/chunks.js';
import { EngineError } from '../errors.js';
import type {
  FileRecognizer,
  FileTranscript,
  RecognizerStream,
  StreamingRecognizer,
  StreamingSttOptions,
  SttResult,
  VadEvent,
  VadStream,
  VoiceActivityDetector,
} from '../types.js';
import { draftPass } from './draft-pass.js';
import { EnergyGate } from './energy-gate.js';
import { InterimText } from './interim-text.js';
import type { OverFileOptions, Utterance } from './over-file-types.js';
import { shiftWords } from './word-agreement.js';

export type { OverFileOptions } from './over-file-types.js';
export { agreedPrefixLength, continuationIndex } from './word-agreement.js';

const RATE = 16_000;
const SAMPLES_PER_MS = RATE / 1000;
/** Utterances shorter than this (ms) with no pass yet get no final (see close()). */
const MIN_FINAL_SAMPLES = 250 * SAMPLES_PER_MS;

export class StreamingOverFile implements StreamingRecognizer {
  readonly kind = 'streaming-stt' as const;
  readonly id: string;
  readonly tier: FileRecognizer['tier'];
  readonly capabilities: StreamingRecognizer['capabilities'];

  constructor(
    readonly file: FileRecognizer,
    private readonly vad: VoiceActivityDetector,
    readonly options: OverFileOptions,
  ) {
    // Same id as the file recognizer: it is the same engine with a streaming face.
    this.id = file.id;
    this.tier = file.tier;
    this.capabilities = { ...file.capabilities, streaming: true, interimResults: true };
  }

  async open(options: StreamingSttOptions): Promise<RecognizerStream> {
    return new OverFileStream(this.file, this.vad.openStream(), this.options, options);
  }
}

class OverFileStream implements RecognizerStream {
  private readonly padSamples: number;
  private readonly lookbackSamples: number;
  private readonly intervalSamples: number;
  private readonly maxSamples: number;
  /** Received audio still needed (from `bufferStart`), as chunks. */
  private chunks: Float32Array[] = [];
  private bufferStart = 0;
  private received = 0;
  private utterance: Utterance | null = null;
  /** Where the last utterance ended: the next one's padding never reaches back over it. */
  private lastEnd = 0;
  /** The passes' results, emitted in order: the pass in flight and the finals queued behind it. */
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  /** Finals asked for whose results are not emitted yet. */
  private finalsOut = 0;
  /** Names this stream's passes to the recognizer (FileSttOptions.stream). */
  private readonly id = randomUUID();
  private readonly cancel = new AbortController();
  private ending: Promise<void> | null = null;
  private aborted = false;
  /** multi_language: the language last heard (the fallback of the next pass). */
  private lastLanguage: string;
  /** Glossary terms every pass favours (setTerms replaces them from the next pass on). */
  private terms: readonly string[];
  private readonly energy: EnergyGate | null;
  private readonly energyCloseMs: number;

  constructor(
    private readonly file: FileRecognizer,
    private readonly vadStream: VadStream,
    private readonly settings: OverFileOptions,
    private readonly options: StreamingSttOptions,
  ) {
    this.padSamples = (settings.paddingMs ?? 300) * SAMPLES_PER_MS;
    this.lookbackSamples = Math.max(this.padSamples, (settings.lookbackMs ?? 0) * SAMPLES_PER_MS);
    this.intervalSamples = settings.intervalMs * SAMPLES_PER_MS;
    this.maxSamples = settings.maxUtteranceMs * SAMPLES_PER_MS;
    this.lastLanguage = options.language;
    this.terms = options.terms ?? [];
    this.energy = settings.energyGate === false ? null : new EnergyGate(settings.energyGate);
    this.energyCloseMs = settings.energyGate ? (settings.energyGate.closeAfterQuietMs ?? 1500) : 1500;
  }

  setTerms(terms: readonly string[]): void {
    this.terms = terms;
  }

  /** The candidates when the session tells languages apart (two or more), else null. */
  private get candidates(): readonly string[] | null {
    const l = this.options.languages;
    return l && l.length > 1 ? l : null;
  }

  /** `detectedLanguage` of a result from transcript `t` (multi_language only). */
  private detected(t: FileTranscript): { detectedLanguage?: string } {
    return this.candidates ? { detectedLanguage: t.language } : {};
  }

  write(pcm: Int16Array): void {
    if (this.aborted || this.ending || pcm.length === 0) return;
    const samples = new Float32Array(pcm.length);
    for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i]! / 32768;
    this.chunks.push(samples);
    this.received += samples.length;
    this.handle(this.vadStream.write(samples));
    if (this.energy) this.handleEnergy(this.energy, this.energy.write(samples));
    this.cutLongUtterance();
    this.maybeInterim();
    this.trim();
  }

  end(): Promise<void> {
    if (this.ending) return this.ending;
    this.ending = (async () => {
      if (!this.aborted) {
        this.handle(this.vadStream.flush());
        if (this.utterance) this.close(this.received);
      }
      await this.chain;
    })();
    return this.ending;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.utterance = null;
    this.chunks = [];
    this.cancel.abort();
  }

  private handle(events: VadEvent[]): void {
    for (const e of events) {
      const at = Math.min(this.received, Math.round(e.atMs * SAMPLES_PER_MS));
      if (e.type === 'speech_start') {
        // The VAD takes over an utterance the energy gate opened: its end closes it.
        if (this.utterance) this.utterance.closedBy = 'vad';
        else this.begin(Math.max(this.bufferStart, this.lastEnd, at - this.lookbackSamples), 'vad');
      } else if (e.type === 'speech_end' && this.utterance?.closedBy === 'vad') this.closeAt(at);
    }
  }

  /**
   * The energy gate's starts open an utterance only where none is open. Its own utterances end
   * after a longer quiet than the VAD's (closeAfterQuietMs, default 1.5 s): a loud phrase the VAD
   * missed is often followed by speech it hears, and one utterance keeps the recognizer's context.
   */
  private handleEnergy(gate: EnergyGate, events: { type: 'speech_start' | 'speech_end'; atMs: number }[]): void {
    for (const e of events) {
      const at = Math.min(this.received, Math.round(e.atMs * SAMPLES_PER_MS));
      if (e.type === 'speech_start' && !this.utterance)
        this.begin(Math.max(this.bufferStart, this.lastEnd, at - this.lookbackSamples), 'energy');
    }
    if (this.utterance?.closedBy === 'energy' && gate.quietMs >= this.energyCloseMs)
      this.closeAt(this.received - gate.quietMs * SAMPLES_PER_MS);
  }

  /** Closes the open utterance at `at` plus the padding (the speech's last sound is kept whole). */
  private closeAt(at: number): void {
    if (!this.utterance) return;
    this.close(Math.max(this.utterance.startSample + 1, Math.min(this.received, at + this.padSamples)));
  }

  private interimText(): InterimText {
    return new InterimText({ tentativeTail: this.settings.tentativeTail ?? false, tailGuardMs: this.settings.tailGuardMs ?? 300 });
  }

  private begin(startSample: number, openedBy: Utterance['openedBy']): void {
    this.utterance = {
      startSample,
      openedBy,
      closedBy: openedBy,
      passedAt: 0,
      interim: this.interimText(),
      interimsSent: 0,
      lastInterim: '',
    };
  }

  /** Speech longer than one pass allows is finalized in pieces; the next piece starts at once. */
  private cutLongUtterance(): void {
    while (this.utterance && this.received - this.utterance.startSample >= this.maxSamples) {
      const cut = this.utterance.startSample + this.maxSamples;
      const { openedBy, closedBy } = this.utterance;
      this.close(cut);
      this.begin(cut, openedBy);
      this.utterance!.closedBy = closedBy;
    }
  }

  /** Closes the current utterance at `endSample` and queues its final pass. */
  private close(endSample: number): void {
    const u = this.utterance;
    if (!u) return;
    this.utterance = null;
    u.endSample = endSample;
    this.lastEnd = endSample;
    // Too short to hold a word, and nothing shown for it: no pass (a stream's end cutting an
    // utterance the energy gate just opened; Whisper only invents text for such input).
    if (endSample - u.startSample < MIN_FINAL_SAMPLES && u.passedAt === 0) return;
    const audio = this.slice(u.startSample, endSample);
    // The final is asked for now, not after the draft in flight (its result is still emitted
    // after that draft's): the host decodes finals before drafts, so it does not wait for the
    // draft's turn, and sessions whose utterances end together have their finals decoded in
    // one batch (docs/whisper.md, "Finals without waiting").
    // While an earlier final is still out, this one is asked for in turn: at most one draft and
    // one final of a stream are in flight (a remote API sees no burst), and in multi_language a
    // final's fallback language is the one the final before it heard.
    const decoding = this.finalsOut > 0 ? null : this.transcribe(audio);
    this.finalsOut++;
    // Tells the draft in flight, if any, that its final is back; a failure is awaited below, in turn.
    decoding?.then(u.draft?.finalBack, () => {});
    this.enqueue(async () => {
      let t: FileTranscript;
      try {
        t = await (decoding ?? this.transcribe(audio));
      } finally {
        this.finalsOut--;
      }
      const text = t.text.trim();
      // An utterance with nothing in it gives no result, unless interims must be closed.
      if (!text && u.interimsSent === 0) return;
      if (this.candidates && text) this.lastLanguage = t.language;
      this.emit({
        ...this.detected(t),
        text,
        isFinal: true,
        startMs: u.startSample / SAMPLES_PER_MS,
        endMs: endSample / SAMPLES_PER_MS,
        words: shiftWords(t, u.startSample / SAMPLES_PER_MS),
      });
    });
  }

  private maybeInterim(): void {
    const u = this.utterance;
    if (!u || !this.options.interimResults || this.pending > 0) return;
    const length = this.received - u.startSample;
    if (length - u.passedAt < this.intervalSamples) return;
    u.passedAt = length;
    const endSample = this.received;
    const audio = this.slice(u.startSample, endSample);
    // Known from now (the pass itself starts after the one in flight): a final asked for before
    // this draft is back, even before it starts, is raced against it.
    const pass = draftPass();
    u.draft = pass;
    this.enqueue(async () => {
      if (pass.finalIsBack()) return; // asked for after its final: of no use
      // Speech the VAD missed, the draft model misses too (jfk's shouted "ask not": "S.", ". . ."):
      // the main model drafts it until the VAD hears speech in the utterance, then the draft
      // model (one switch at most: passes of two models rarely agree on a word, and switching
      // back and forth by how long the last pass took left whole utterances to their final).
      const drafting = this.transcribe(audio, true, u.closedBy === 'energy', pass.request.signal);
      if ((await pass.firstBack(drafting)) === 'final') {
        // Its utterance's final came back first: the draft is of no use, and a host that has
        // not decoded it yet skips it once its request is gone.
        pass.request.abort();
        return;
      }
      let t: FileTranscript;
      try {
        t = await drafting;
      } catch (err) {
        // Its final, asked for meanwhile, covers its audio: the engine host drops a stream's
        // drafts still queued when its final comes (409 superseded), and any other failure
        // shows in the final if it lasts.
        if (u.endSample !== undefined) return;
        throw err;
      }
      // Closed while this pass ran: its interim is still sent when it comes back before the
      // final; the words at an utterance's end would otherwise show only with the final
      // (docs/whisper.md, "Finals batched").
      const text = u.interim.add(t, (endSample - u.startSample) / SAMPLES_PER_MS);
      if (!text || text === u.lastInterim) return;
      u.lastInterim = text;
      u.interimsSent++;
      this.emit({
        ...this.detected(t),
        text,
        isFinal: false,
        startMs: u.startSample / SAMPLES_PER_MS,
        endMs: endSample / SAMPLES_PER_MS,
      });
    });
  }

  /** Runs `pass` after the one in flight; failures go to onError, the stream goes on. */
  private enqueue(pass: () => Promise<void>): void {
    this.pending++;
    this.chain = this.chain
      .then(() => (this.aborted ? undefined : pass()))
      .catch((err: unknown) => {
        if (this.aborted) return;
        this.options.onError(
          err instanceof EngineError
            ? err
            : new EngineError('stt_connection_lost', `live recognition pass failed: ${String(err)}`, {
                retryable: true,
                engineId: this.file.id,
                cause: err,
              }),
        );
      })
      .finally(() => {
        this.pending--;
        if (!this.aborted && !this.ending) this.maybeInterim();
      });
  }

  /** async: a recognizer that throws at once fails the pass, never the write() that asked for a final. */
  private async transcribe(samples: Float32Array, draft = false, mainModel = false, signal?: AbortSignal): Promise<FileTranscript> {
    const candidates = this.candidates;
    const language = candidates ? this.lastLanguage : this.options.language;
    return this.file.transcribe(
      { sampleRate: RATE, samples },
      {
        language,
        ...(candidates ? { languages: candidates } : {}),
        ...(this.terms.length ? { terms: this.terms } : {}),
        priority: 'live',
        stream: this.id,
        ...(draft ? { draft } : {}),
        ...(mainModel ? { mainModel } : {}),
        signal: signal ? AbortSignal.any([this.cancel.signal, signal]) : this.cancel.signal,
      },
    );
  }

  private emit(result: SttResult): void {
    if (!this.aborted) this.options.onResult(result);
  }

  /** Copy of received audio [from, to) (absolute sample positions). */
  private slice(from: number, to: number): Float32Array {
    return copyRange(this.chunks, this.bufferStart, from, to, (n) => new Float32Array(n));
  }

  /** Drops audio no utterance can need any more (older than the padding before now). */
  private trim(): void {
    const keepFrom = this.utterance ? this.utterance.startSample : this.received - this.lookbackSamples;
    while (this.chunks.length > 1 && this.bufferStart + this.chunks[0]!.length <= keepFrom) {
      this.bufferStart += this.chunks[0]!.length;
      this.chunks.shift();
    }
  }
}
