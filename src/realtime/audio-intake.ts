/**
 * Checks on audio a client sends before it is recorded: `data.audio` must be strict base64,
 * and a `pcm` session must not receive a container (it would be recorded as noise).
 */
import { AppError } from '../platform/errors/app-error.js';

const ws = { variant: 'websocket' as const };

/** Magic bytes of containers a PCM session must not receive. */
const CONTAINERS: [string, Buffer][] = [
  ['webm', Buffer.from([0x1a, 0x45, 0xdf, 0xa3])],
  ['wav', Buffer.from('RIFF')],
  ['ogg', Buffer.from('OggS')],
  ['flac', Buffer.from('fLaC')],
  ['mp3', Buffer.from('ID3')],
];

/** Binary frames as they are; base64 text decoded strictly (Buffer.from skips unknown characters). */
export function decodeAudioPayload(payload: unknown): Buffer | AppError {
  if (Buffer.isBuffer(payload)) return payload;
  const bad = new AppError('audio_invalid_format', {
    ...ws,
    message: '`data.audio` must be base64-encoded audio.',
    details: { field: 'audio' },
  });
  if (typeof payload !== 'string' || payload.length === 0 || payload.length % 4 === 1) return bad;
  const bytes = Buffer.from(payload, 'base64');
  const unpadded = payload.replace(/=+$/, '').length;
  return bytes.length === Math.floor((unpadded * 3) / 4) ? bytes : bad;
}

/** audio_invalid_format when a `pcm` session receives a known container; the chunk is dropped. */
export function containerMismatch(bytes: Buffer, audioFormat: 'pcm' | 'webm'): AppError | null {
  if (audioFormat !== 'pcm') return null;
  const container = CONTAINERS.find(([, magic]) => bytes.subarray(0, magic.length).equals(magic));
  if (!container) return null;
  return new AppError('audio_invalid_format', {
    ...ws,
    message: `This looks like ${container[0]} audio; the session's audio_format is pcm (16 kHz 16-bit mono). The chunk was dropped.`,
    details: { audio_format: 'pcm', detected: container[0] },
  });
}
