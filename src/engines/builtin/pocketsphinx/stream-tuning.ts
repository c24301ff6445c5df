/** The timing of PocketSphinx live streams (live-stream.ts). */

/** Interim hypotheses at least this often (ms of audio). */
export const INTERIM_EVERY_MS = 200;
/**
 * Audio is decoded in pieces of at most this many samples (100 ms) and the hypothesis is
 * read after each: a client sending larger chunks still gets interims every 200 ms of audio.
 */
export const PIECE_SAMPLES = 1600;
/**
 * The VAD reports an end of speech once this much silence followed it (silero-vad.ts,
 * minSilenceSeconds). Within one large chunk, the utterance is closed this long after the
 * reported end, where a stream of small chunks would have closed it.
 */
export const ENDPOINT_SILENCE_MS = 400;
/** A final is forced when an utterance runs this long without an endpoint. */
export const MAX_UTTERANCE_MS = 20_000;
/** Audio kept before the current position while nobody speaks (the VAD dates a speech start back). */
export const KEEP_IN_SILENCE_MS = 2000;
/**
 * Speech heard before the stream decoder's cepstral mean is taken from this stream's own audio
 * (primeCepstralMean); the audio before it is decoded again with that mean.
 */
export const PRIME_AFTER_MS = 600;
/** How often the utterance so far is decoded again by a finals decoder by default (maybeRefresh). */
export const REFRESH_EVERY_MS = 800;
