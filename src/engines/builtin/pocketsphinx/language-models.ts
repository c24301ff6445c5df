/**
 * Language models several decoders share (issue 14: memory per live session).
 *
 * Measured with Debian's PocketSphinx 5prealpha and the en-us models: a decoder holds its
 * acoustic model (~5.5 MB), the pronunciation dictionary cut to the LM's words (~13.5 MB),
 * the LM (~33 MB once read) and its search (the LM wrapped in a set plus the lexicon tree,
 * ~27 MB). The LM is the one piece this library lets decoders share: a decoder made without
 * `-lm` is given an LM read once (`ps_set_lm`), and its search keeps a reference to it.
 *
 * Two things forbid sharing it naively:
 * - The trie LM scores through a cache of the last history it saw (lm_trie_score's
 *   backoff_cache), written on every lookup: two threads scoring the same LM at once would
 *   read each other's backoffs and give wrong, run-dependent words. So every library call of
 *   a decoder on a shared LM runs inside the model's `exclusive` section, one at a time.
 * - `ps_add_word` adds the word to the LM itself (ngram_model_add_word through the set):
 *   glossary words would leak into every decoder sharing it. Decoders that take a vocabulary
 *   read their own LM (DecoderPool gives them private ones).
 *
 * A decoder with its own LM gets a `LanguageModelLane` of its own: its section never waits.
 */

/** Runs a decoder's library calls one at a time with the other decoders of the same LM. */
export class LanguageModelLane {
  private tail: Promise<void> = Promise.resolve();
  /** Decoders using this lane (chooses the least used copy; frees the LM at 0). */
  users = 0;
  /** The lane's own reference on the model was dropped (freeSharedLanguageModel). */
  freed = false;

  constructor(
    /** The shared ngram_model_t, or null for a decoder that reads its own LM. */
    readonly model: unknown = null,
  ) {}

  get shared(): boolean {
    return this.model !== null;
  }

  /** `fn` runs when every earlier section of this lane has ended (whether it failed or not). */
  exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.then(
      () => {},
      () => {},
    );
    return run;
  }
}
