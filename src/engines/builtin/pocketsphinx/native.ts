/**
 * PocketSphinx (Debian's libpocketsphinx 0.8/5-prealpha API) through koffi. Decoding calls
 * run on koffi's worker threads (`.async`), so recognition never blocks the event loop.
 * A file decoder holds ~85 MB of models and takes ~0.2 s to load; a stream decoder on the
 * cut stream model (stream-model.ts) ~26 MB. Decoders are pooled and reused (decoder-pool.ts).
 */
import { existsSync } from 'node:fs';
import koffi from 'koffi';
import { nativeLibrary, silenceSphinxLog } from './libraries.js';
import { lmDictionary } from './lm-dictionary.js';

export const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

export interface PsWord {
  word: string;
  /** Frames of 10 ms from the start of the utterance. */
  startFrame: number;
  endFrame: number;
}

type AsyncFn = { async: (...args: unknown[]) => void } & ((...args: unknown[]) => unknown);

interface Api {
  ps_args: () => unknown;
  cmd_ln_parse_r: (a: unknown, b: unknown, argc: number, argv: string[], strict: number) => unknown;
  ps_init: AsyncFn;
  ps_free: (ps: unknown) => number;
  ps_start_utt: (ps: unknown) => number;
  ps_start_stream: (ps: unknown) => number;
  ps_end_utt: AsyncFn;
  ps_process_raw: AsyncFn;
  ps_get_hyp: (ps: unknown, score: number[]) => string | null;
  ps_seg_iter: (ps: unknown) => unknown;
  ps_seg_next: (seg: unknown) => unknown;
  ps_seg_word: (seg: unknown) => string;
  ps_seg_frames: (seg: unknown, sf: number[], ef: number[]) => void;
  ps_add_word: (ps: unknown, word: string, phones: string, update: number) => number;
  ps_lookup_word: (ps: unknown, word: string) => string | null;
  ps_get_feat: (ps: unknown) => unknown;
  cmn_live_update: (cmn: unknown) => void;
}

let api: Api | null = null;

/**
 * Loads the library once; throws with a clear message when it is not installed. The library's
 * output is turned off here for the whole process (silenceSphinxLog), instead of giving each
 * decoder `-logfn /dev/null` as before: that option makes ps_init swap the library's one
 * global log FILE and fclose the previous one, while decoders on other threads write to it
 * (every utterance end logs its cepstral mean update) and another ps_init may close it too.
 * CI saw "malloc(): smallbin double linked list corrupted" at start-up once two finals decoders
 * were loaded at once; four concurrent ps_init with -logfn corrupted the heap within 3 rounds
 * here, and none in 2 x 15 rounds without it.
 */
export function pocketsphinxApi(): Api {
  if (api) return api;
  const lib = nativeLibrary('libpocketsphinx.so.3');
  const sb = nativeLibrary('libsphinxbase.so.3');
  silenceSphinxLog();
  api = {
    ps_args: lib.func('void *ps_args()'),
    cmd_ln_parse_r: sb.func('void *cmd_ln_parse_r(void *, void *, int, const char **, int)'),
    ps_init: lib.func('void *ps_init(void *)') as AsyncFn,
    ps_free: lib.func('int ps_free(void *)'),
    ps_start_utt: lib.func('int ps_start_utt(void *)'),
    ps_start_stream: lib.func('int ps_start_stream(void *)'),
    ps_end_utt: lib.func('int ps_end_utt(void *)') as AsyncFn,
    ps_process_raw: lib.func('int ps_process_raw(void *, const int16_t *, size_t, int, int)') as AsyncFn,
    ps_get_hyp: lib.func('const char *ps_get_hyp(void *, _Out_ int *)'),
    ps_seg_iter: lib.func('void *ps_seg_iter(void *)'),
    ps_seg_next: lib.func('void *ps_seg_next(void *)'),
    ps_seg_word: lib.func('const char *ps_seg_word(void *)'),
    ps_seg_frames: lib.func('void ps_seg_frames(void *, _Out_ int *, _Out_ int *)'),
    ps_add_word: lib.func('int ps_add_word(void *, const char *, const char *, int)'),
    ps_lookup_word: lib.func('const char *ps_lookup_word(void *, const char *)'),
    ps_get_feat: lib.func('void *ps_get_feat(void *)'),
    cmn_live_update: sb.func('void cmn_live_update(void *)'),
  };
  return api;
}

export function modelsInstalled(dir = MODEL_DIR): boolean {
  return existsSync(`${dir}/en-us/mdef`) && existsSync(`${dir}/en-us.lm.bin`) && existsSync(`${dir}/cmudict-en-us.dict`);
}

function callAsync<T>(fn: AsyncFn, ...args: unknown[]): Promise<T> {
  return new Promise((resolve, reject) => fn.async(...args, (err: unknown, res: T) => (err ? reject(err) : resolve(res))));
}

/** Words that are not speech: sentence marks, silence and filler/noise tokens. */
function isFiller(word: string): boolean {
  return word === '<s>' || word === '</s>' || word === '<sil>' || word.startsWith('[') || word.startsWith('++');
}

/** What a decoder is set up for: its search settings differ (see DECODER_SETTINGS). */
export type DecoderProfile = 'file' | 'stream';

/**
 * Search settings per use, measured with bench/engines and a sweep over the LibriVox clips,
 * jfk and the two voices of stereo_diarization (not used for tuning):
 * - A narrower word-exit beam (1e-20; default 7e-29) and at most 5,000 active HMMs a frame
 *   (default 30,000) halve the CPU time of the first pass (real-time factor 0.25 -> 0.13 of
 *   one core) with the same WER on all three sets. Narrower HMM beams (-beam 1e-40) or fewer
 *   HMMs (3,000) were faster still but lost words (jfk 32 % -> 41-55 %).
 * - Files (and live finals) widen the HMM beam to 1e-60 (default 1e-48): with the 5,000-HMM
 *   cap the CPU time stays the same (CPU per audio second 0.40 vs 0.415 in one run, load 16)
 *   and jfk goes from 27 % to 18 % WER; the LibriVox clips (28.2 % pooled) and the held-out
 *   stereo_diarization voices gave the same words. 1e-70 was no better and cost 10 % more.
 * - Files (and live finals) also take a higher silence insertion probability (-silprob 0.1;
 *   default 0.005) and score 6 Gaussians per codebook (-topn 6; default 4 for this model):
 *   LibriVox clips 26.8 % -> 23.9 % pooled (19 -> 17 errors in 71 words: 0870 7 -> 6, 0890
 *   4 -> 3; the others unchanged), jfk 18.2 % and the held-out stereo_diarization voices
 *   31.8 % unchanged, process CPU per audio second 0.139-0.156 vs 0.144-0.150 (two runs each,
 *   load 17-20). Each alone gained one LibriVox error; lw 5.5-8.5, wip 0.2-2, pip, uw, fillprob,
 *   bestpathlw, fwdflatlw, -bestpath no, -remove_noise no and whole clips without VAD cuts were
 *   no better on LibriVox or cost jfk 2-6 errors (bench notes in issue 14's closing note).
 * - Stream decoders (interims only) skip the flat-lexicon second pass (-fwdflat no): ending
 *   an utterance then takes 1-75 ms instead of 60-400 ms, time during which the next
 *   utterance's audio waits. Files keep it: there it is worth 14 points on jfk (27 % vs
 *   45 %) for 15 % more time. Live finals are decoded by file decoders (streaming.ts).
 * - The phone-loop lookahead of live streams is a setting (PARLEY_POCKETSPHINX_STREAM_LOOKAHEAD,
 *   frames; default 0 here, 5 in the library). It holds every hypothesis back by its length:
 *   at 0 the first words of an utterance show ~60 ms sooner (first partial p95 256-276 ms vs
 *   295-306 ms on a quiet machine); at 5 the search prunes far more in silence, and
 *   bench:realtime kept interim p95 under 500 ms for 8 concurrent streams instead of 4.
 */
export const DECODER_SETTINGS: Record<DecoderProfile, readonly string[]> = {
  file: ['-wbeam', '1e-20', '-maxhmmpf', '5000', '-beam', '1e-60', '-silprob', '0.1', '-topn', '6'],
  stream: ['-wbeam', '1e-20', '-maxhmmpf', '5000', '-fwdflat', 'no'],
};

/** Tunables an operator may change (engine settings), and the stream decoders' model. */
export interface DecoderOptions {
  /** Phone-loop lookahead of stream decoders, in 10 ms frames (-pl_window). */
  streamLookahead?: number;
  /**
   * The language model and dictionary of stream decoders (interims only): the cut model of
   * stream-model.ts. Without it they load the full ones, like file decoders.
   */
  streamModel?: { lm: string; dict: string } | null;
}

/** The command-line arguments of a decoder of `profile`. */
export function decoderArguments(profile: DecoderProfile, options: DecoderOptions = {}): string[] {
  const args = [...DECODER_SETTINGS[profile]];
  if (profile === 'stream') args.push('-pl_window', String(options.streamLookahead ?? 0));
  return args;
}

/**
 * Words a session or import adds to its decoder (glossary terms the dictionary lacks), with
 * CMU phones. `key` names the set: a decoder that has a vocabulary serves only jobs with the
 * same key (PocketSphinx cannot remove a word), so terms never leak between sessions.
 */
export interface Vocabulary {
  key: string;
  words: ReadonlyArray<{ word: string; phones: string }>;
}

export const NO_VOCABULARY: Vocabulary = { key: '', words: [] };

/** The language model and dictionary a decoder of `profile` loads. */
function modelFiles(modelDir: string, profile: DecoderProfile, options: DecoderOptions): { lm: string; dict: string } {
  if (profile === 'stream' && options.streamModel) return options.streamModel;
  return { lm: `${modelDir}/en-us.lm.bin`, dict: lmDictionary(modelDir) };
}

/** The configuration (parsed command line) of a decoder of `profile`. */
function decoderConfig(modelDir: string, profile: DecoderProfile, options: DecoderOptions): unknown {
  const a = pocketsphinxApi();
  const { lm, dict } = modelFiles(modelDir, profile, options);
  const argv = ['-hmm', `${modelDir}/en-us`, '-lm', lm, '-dict', dict, ...decoderArguments(profile, options)];
  const config = a.cmd_ln_parse_r(null, a.ps_args(), argv.length, argv, 1);
  if (!config) throw new Error('pocketsphinx rejected its configuration');
  return config;
}

/** The decoder initialization in progress (PsDecoder.create runs one at a time). */
let initializing: Promise<void> = Promise.resolve();

/** One decoder: an utterance at a time, its calls one after another (the caller's order). */
export class PsDecoder {
  /** The vocabulary added to this decoder ('' when none). */
  vocabularyKey = '';

  private constructor(
    private readonly handle: unknown,
    readonly profile: DecoderProfile,
  ) {}

  static async create(modelDir = MODEL_DIR, profile: DecoderProfile = 'file', options: DecoderOptions = {}): Promise<PsDecoder> {
    // One initialization at a time: ps_init also touches the library's global state (logging,
    // above); the ~0.2 s each takes is paid once per pooled decoder.
    const run = initializing.then(async () => {
      const config = decoderConfig(modelDir, profile, options);
      const handle = await callAsync<unknown>(pocketsphinxApi().ps_init, config);
      if (!handle) throw new Error('pocketsphinx could not load its models');
      return new PsDecoder(handle, profile);
    });
    initializing = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /**
   * Starts a new audio stream (the front end's noise statistics and frame count). A
   * whole-utterance decode normalizes cepstra over the utterance itself (utterance.ts), so its
   * result never depends on what the decoder heard before; a stream decoder's running
   * cepstral mean carries over from its last use (only its interims depend on it).
   */
  startStream(): void {
    if (pocketsphinxApi().ps_start_stream(this.handle) < 0) throw new Error('ps_start_stream failed');
  }

  async startUtterance(): Promise<void> {
    if (pocketsphinxApi().ps_start_utt(this.handle) < 0) throw new Error('ps_start_utt failed');
  }

  /** Feeds samples (16 kHz s16 mono) on a worker thread. `fullUtterance` when the whole utterance is given at once. */
  async process(pcm: Int16Array, fullUtterance = false): Promise<void> {
    const r = await callAsync<number>(pocketsphinxApi().ps_process_raw, this.handle, pcm, pcm.length, 0, fullUtterance ? 1 : 0);
    if (r < 0) throw new Error('ps_process_raw failed');
  }

  /** The current best hypothesis inside an utterance, filler words removed. */
  hypothesis(): string {
    const h = pocketsphinxApi().ps_get_hyp(this.handle, [0]) ?? '';
    return h
      .split(' ')
      .filter((w) => w && !isFiller(w))
      .join(' ');
  }

  async endUtterance(): Promise<void> {
    await callAsync<number>(pocketsphinxApi().ps_end_utt, this.handle);
  }

  /** Ends the utterance and returns its words (words()). */
  async finish(utteranceSamples: number): Promise<PsWord[]> {
    await this.endUtterance();
    return this.words(utteranceSamples);
  }

  /**
   * Words of the last utterance ("(2)" pronunciation variants folded), with frames from the
   * utterance start. This library version numbers frames across all utterances of a
   * decoder, so they are rebased: the last segment ends where the utterance's audio ends.
   */
  private words(utteranceSamples: number): PsWord[] {
    const a = pocketsphinxApi();
    const all: PsWord[] = [];
    for (let seg = a.ps_seg_iter(this.handle); seg; seg = a.ps_seg_next(seg)) {
      const sf = [0];
      const ef = [0];
      a.ps_seg_frames(seg, sf, ef);
      all.push({ word: a.ps_seg_word(seg).replace(/\(\d+\)$/, ''), startFrame: sf[0]!, endFrame: ef[0]! });
    }
    if (!all.length) return [];
    const lastFrame = Math.max(...all.map((w) => w.endFrame));
    const base = Math.max(0, lastFrame + 1 - Math.round(utteranceSamples / 160));
    return all.filter((w) => !isFiller(w.word)).map((w) => ({ ...w, startFrame: w.startFrame - base, endFrame: w.endFrame - base }));
  }

  /**
   * The running cepstral mean of streaming decodes (sphinxbase's cmn_t: mean, var, sum
   * pointers, then nframe and veclen, reached through feat_t.cmn_struct at byte 88 in
   * Debian's 5prealpha). Null when the layout does not read back as expected (13 cepstra),
   * so a library of another layout is never written to.
   */
  private cepstralStats(): { cmn: unknown; sum: unknown } | null {
    const feat = pocketsphinxApi().ps_get_feat(this.handle);
    if (!feat) return null;
    const cmn = koffi.decode(feat, 88, 'void *');
    if (!cmn || koffi.decode(cmn, 28, 'int32') !== 13) return null;
    const nframe = koffi.decode(cmn, 24, 'int32') as number;
    if (nframe < 0 || nframe > 100_000_000) return null;
    return { cmn, sum: koffi.decode(cmn, 16, 'void *') };
  }

  /**
   * Forgets the frames the running cepstral mean was summed from (the mean itself stays until
   * the next update), so the next update is the mean of this stream's audio alone.
   */
  forgetCepstralHistory(): void {
    const stats = this.cepstralStats();
    if (!stats) return;
    koffi.encode(stats.sum, 0, 'float', new Array(13).fill(0), 13);
    koffi.encode(stats.cmn, 24, 'int32', 0);
  }

  /** Makes the running cepstral mean the mean of the frames summed so far (cmn_live_update). */
  adoptCepstralMeanSoFar(): void {
    const stats = this.cepstralStats();
    if (stats && (koffi.decode(stats.cmn, 24, 'int32') as number) > 0) pocketsphinxApi().cmn_live_update(stats.cmn);
  }

  /** Whether the dictionary has `word` (its dictionary spelling). */
  knows(word: string): boolean {
    return pocketsphinxApi().ps_lookup_word(this.handle, word) !== null;
  }

  /**
   * Adds the words the dictionary lacks; the language model gets each as a unigram at its
   * mean unigram probability (ps_add_word). Boosting that weight (adding the word to the
   * model first, with ngram_model_add_word) made this PocketSphinx version crash on real
   * speech with a few added words, so it is not done. The search is rebuilt once, after the
   * last. The words go into this decoder's own language model.
   */
  addVocabulary(vocabulary: Vocabulary): void {
    const a = pocketsphinxApi();
    const fresh = vocabulary.words.filter((w) => !this.knows(w.word));
    fresh.forEach((w, i) => {
      if (a.ps_add_word(this.handle, w.word, w.phones, i === fresh.length - 1 ? 1 : 0) < 0)
        throw new Error(`pocketsphinx refused the word ${w.word}`);
    });
    this.vocabularyKey = vocabulary.key;
  }

  free(): void {
    pocketsphinxApi().ps_free(this.handle);
  }
}
