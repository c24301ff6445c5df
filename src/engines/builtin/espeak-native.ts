/**
 * libespeak-ng through koffi. The library keeps global state (one voice, one callback), so
 * it is loaded once per process and each synthesis runs to completion synchronously
 * (AUDIO_OUTPUT_SYNCHRONOUS): no two syntheses can interleave. A sentence takes 5-15 ms,
 * which keeps the event loop responsive for the sentence-sized texts TTS is used for.
 */
import koffi from 'koffi';

const AUDIO_OUTPUT_SYNCHRONOUS = 2;
const INITIALIZE_DONT_EXIT = 0x8000;
const POS_CHARACTER = 1;
const CHARS_UTF8 = 1;
const PARAM_RATE = 1;
const EVENT_LIST_TERMINATED = 0;
const EVENT_WORD = 1;

export interface WordEvent {
  /** 1-based position in code points of the input text, as eSpeak reports it. */
  textPosition: number;
  /** Word length in code points. */
  length: number;
  /** Start of the word in the audio (ms). */
  audioMs: number;
}

export interface RawSynthesis {
  sampleRate: number;
  pcm: Int16Array;
  words: WordEvent[];
}

interface Native {
  sampleRate: number;
  synth: (text: Buffer, size: number, pos: number, posType: number, end: number, flags: number, uid: null, user: null) => number;
  setVoice: (name: string) => number;
  setParam: (param: number, value: number, relative: number) => number;
}

let native: Native | null = null;
// Filled by the callback during one synchronous espeak_Synth call.
let chunks: Int16Array[] = [];
let events: WordEvent[] = [];

function load(): Native {
  if (native) return native;
  const lib = koffi.load('libespeak-ng.so.1');
  const Event = koffi.struct('parley_espeak_EVENT', {
    type: 'int',
    unique_identifier: 'uint',
    text_position: 'int',
    length: 'int',
    audio_position: 'int',
    sample: 'int',
    user_data: 'void *',
    id: 'int64',
  });
  const eventSize = koffi.sizeof(Event);
  const Callback = koffi.proto('int parley_espeak_cb(int16_t *wav, int numsamples, parley_espeak_EVENT *events)');
  const init = lib.func('int espeak_Initialize(int, int, const char *, int)');
  const setCallback = lib.func('void espeak_SetSynthCallback(parley_espeak_cb *)');
  const sampleRate = init(AUDIO_OUTPUT_SYNCHRONOUS, 0, null, INITIALIZE_DONT_EXIT) as number;
  if (sampleRate <= 0) throw new Error('espeak_Initialize failed (is espeak-ng-data installed?)');
  // Registered once for the life of the process: eSpeak keeps the pointer.
  const cb = koffi.register((wav: unknown, n: number, evs: unknown) => {
    if (wav && n > 0) chunks.push(Int16Array.from(koffi.decode(wav, koffi.array('int16_t', n, 'Typed')) as Int16Array));
    for (let i = 0; evs; i++) {
      const e = koffi.decode(evs, i * eventSize, Event) as { type: number; text_position: number; length: number; audio_position: number };
      if (e.type === EVENT_LIST_TERMINATED) break;
      if (e.type === EVENT_WORD) events.push({ textPosition: e.text_position, length: e.length, audioMs: e.audio_position });
    }
    return 0;
  }, koffi.pointer(Callback));
  setCallback(cb);
  native = {
    sampleRate,
    synth: lib.func(
      'int espeak_Synth(const void *, size_t, unsigned int, int, unsigned int, unsigned int, void *, void *)',
    ) as Native['synth'],
    setVoice: lib.func('int espeak_SetVoiceByName(const char *)') as Native['setVoice'],
    setParam: lib.func('int espeak_SetParameter(int, int, int)') as Native['setParam'],
  };
  return native;
}

/** Sample rate of eSpeak's output (22050 Hz for the standard voices). */
export function espeakSampleRate(): number {
  return load().sampleRate;
}

/** Loads the library (throws when it is missing) and reports whether `voice` exists. */
export function espeakHasVoice(voice: string): boolean {
  return load().setVoice(voice) === 0;
}

/** Synthesizes `text` with an eSpeak voice name (e.g. "en-us+f3") at `wordsPerMinute`. */
export function espeakSynthesize(text: string, voice: string, wordsPerMinute: number): RawSynthesis {
  const n = load();
  if (n.setVoice(voice) !== 0) throw new Error(`eSpeak voice ${voice} is not installed`);
  n.setParam(PARAM_RATE, wordsPerMinute, 0);
  chunks = [];
  events = [];
  const buf = Buffer.from(`${text}\0`, 'utf8');
  const rc = n.synth(buf, buf.length, 0, POS_CHARACTER, 0, CHARS_UTF8, null, null);
  if (rc !== 0) throw new Error(`espeak_Synth returned ${rc}`);
  const total = chunks.reduce((a, c) => a + c.length, 0);
  const pcm = new Int16Array(total);
  let at = 0;
  for (const c of chunks) {
    pcm.set(c, at);
    at += c.length;
  }
  const words = events;
  chunks = [];
  events = [];
  return { sampleRate: n.sampleRate, pcm, words };
}
