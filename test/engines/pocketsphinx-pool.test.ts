/**
 * The PocketSphinx decoder pool with its two profiles (file: two-pass search; stream: one
 * pass, so finals do not hold up the next utterance), on real decoders.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeToPcm } from '../../src/engines/audio/ffmpeg.js';
import { DecoderPool } from '../../src/engines/builtin/pocketsphinx/decoder-pool.js';
import {
  type DecoderOptions,
  decoderArguments,
  MODEL_DIR,
  modelsInstalled,
  PsDecoder,
} from '../../src/engines/builtin/pocketsphinx/native.js';
import { streamModel } from '../../src/engines/builtin/pocketsphinx/stream-model.js';
import { toInt16 } from '../../src/engines/builtin/pocketsphinx/utterance.js';
import { wordErrorRate } from '../../src/engines/quality/wer.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-';
const CLIPS = ['0870', '0880', '0890', '0920'].map((n) => `${LIBRIVOX}${n}.wav`);

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('PocketSphinx decoder arguments', () => {
  it('streams: one pass and the configured phone-loop lookahead (0 by default); files: both passes, library lookahead', () => {
    expect(decoderArguments('stream')).toEqual(expect.arrayContaining(['-fwdflat', 'no']));
    expect(decoderArguments('stream').slice(-2)).toEqual(['-pl_window', '0']);
    expect(decoderArguments('stream', { streamLookahead: 5 }).slice(-2)).toEqual(['-pl_window', '5']);
    expect(decoderArguments('file', { streamLookahead: 5 })).not.toContain('-pl_window');
    expect(decoderArguments('file')).not.toContain('-fwdflat');
  });
});

describe.skipIf(!modelsInstalled())('PocketSphinx decoder pool', () => {
  it('reuses a decoder of the asked profile, and frees an idle one of the other profile when full', async () => {
    const pool = new DecoderPool(1);
    try {
      const file = await pool.acquire('file');
      expect(file.profile).toBe('file');
      pool.release(file);
      const stream = await pool.acquire('stream');
      expect(stream.profile).toBe('stream');
      expect(stream).not.toBe(file);
      pool.release(stream);
      expect(await pool.acquire('stream')).toBe(stream);
      pool.release(stream);
    } finally {
      pool.close();
    }
  }, 30_000);

  it('hands a released decoder to a waiter of its profile first, then loads one for a waiter of the other', async () => {
    const pool = new DecoderPool(1);
    try {
      const first = await pool.acquire('file');
      const got: PsDecoder[] = [];
      const streamWaiter = pool.acquire('stream').then((d) => got.push(d));
      const fileWaiter = pool.acquire('file').then((d) => got.push(d));
      await settle();
      expect(got).toEqual([]);
      pool.release(first);
      await fileWaiter;
      expect(got).toEqual([first]);
      pool.release(first);
      await streamWaiter;
      expect(got[1]!.profile).toBe('stream');
      pool.release(got[1]!);
    } finally {
      pool.close();
    }
  }, 30_000);

  it('a decoder that learnt a vocabulary serves only that vocabulary; it is freed first for others', async () => {
    const pool = new DecoderPool(1);
    const vocabulary = { key: 'picovoice', words: [{ word: 'picovoice', phones: 'P IY K OW V OY S' }] };
    try {
      const clean = await pool.acquire('file');
      expect(clean.knows('picovoice')).toBe(false);
      pool.release(clean);
      const taught = await pool.acquire('file', undefined, vocabulary);
      expect(taught).toBe(clean); // a clean idle decoder takes the vocabulary on
      expect(taught.knows('picovoice')).toBe(true);
      pool.release(taught);
      expect(await pool.acquire('file', undefined, vocabulary)).toBe(taught);
      pool.release(taught);
      const other = await pool.acquire('file');
      expect(other).not.toBe(taught);
      expect(other.knows('picovoice')).toBe(false);
      pool.release(other);
    } finally {
      pool.close();
    }
  }, 60_000);

  it('a waiter that gives up is removed: the next release is not lost to it', async () => {
    const pool = new DecoderPool(1);
    try {
      const busy = await pool.acquire('stream');
      const quit = new AbortController();
      const gaveUp = pool.acquire('stream', quit.signal);
      quit.abort(new Error('gave up'));
      await expect(gaveUp).rejects.toThrow('gave up');
      pool.release(busy);
      // The same decoder comes back at once (no new load, nothing leaked to the dead waiter).
      expect(await pool.acquire('stream', AbortSignal.timeout(1000))).toBe(busy);
      pool.release(busy);
    } finally {
      pool.close();
    }
  }, 30_000);

  it('close refuses waiters and later acquisitions', async () => {
    const pool = new DecoderPool(1);
    const busy = await pool.acquire('stream');
    const waiter = pool.acquire('stream');
    pool.close();
    await expect(waiter).rejects.toThrow('pool closed');
    await expect(pool.acquire('file')).rejects.toThrow('pool closed');
    pool.release(busy);
  }, 30_000);

  it('stream decoders load the cut stream model, file decoders the full one; both learn glossary words', async () => {
    const pool = new DecoderPool(3, MODEL_DIR, { streamModel: streamModel(MODEL_DIR, 15_000) });
    const vocabulary = { key: 'picovoice', words: [{ word: 'picovoice', phones: 'P IY K OW V OY S' }] };
    try {
      const stream = await pool.acquire('stream');
      const file = await pool.acquire('file');
      expect(stream.knows('country')).toBe(true);
      expect(stream.knows('prudently')).toBe(false); // a rare word: interims lack it
      expect(file.knows('prudently')).toBe(true); // finals and files keep every word
      const plain = new DecoderPool(1); // no stream model (PARLEY_POCKETSPHINX_STREAM_VOCABULARY=0, or it could not be built)
      const full = await plain.acquire('stream');
      expect(full.knows('prudently')).toBe(true);
      plain.release(full);
      plain.close();
      const taught = await pool.acquire('stream', undefined, vocabulary);
      expect(taught.knows('picovoice')).toBe(true);
      expect(stream.knows('picovoice')).toBe(false);
      for (const d of [stream, file, taught]) pool.release(d);
    } finally {
      pool.close();
    }
  }, 60_000);

  it.skipIf(!CLIPS.every((c) => existsSync(c)))(
    'a stream decoder on the cut model hears a LibriVox clip about as well as on the full model',
    async () => {
      const pcm = toInt16((await decodeToPcm(CLIPS[1]!, { ffmpegPath: 'ffmpeg' })).samples);
      const heard = async (options: DecoderOptions) => {
        const d = await PsDecoder.create(MODEL_DIR, 'stream', options);
        try {
          await d.startUtterance();
          for (let at = 0; at < pcm.length; at += 1600) await d.process(pcm.subarray(at, at + 1600));
          return (await d.finish(pcm.length)).map((w) => w.word).join(' ');
        } finally {
          d.free();
        }
      };
      const full = await heard({});
      const cut = await heard({ streamModel: streamModel(MODEL_DIR, 15_000) });
      const reference = 'he was not an ill disposed young man';
      expect(full).toContain('young man');
      expect(cut).toContain('young man');
      expect(wordErrorRate(reference, cut)).toBeLessThanOrEqual(wordErrorRate(reference, full) + 0.15);
    },
    60_000,
  );
});
