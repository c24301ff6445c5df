/**
 * An upload's audio is measured before it is trusted: its header's sample rate and channel
 * count must be ones speech recordings use, and the duration decoding gives must be plausible
 * for the bytes the file holds. A WAV that claims a 1 Hz sample rate would otherwise turn
 * 64 KB into nine hours of 16 kHz audio (a gigabyte of PCM, minutes of recognition). A file
 * that fails a check is refused with 415 import_invalid_format and `details.reason`.
 */
import type { ProbeResult, StreamHeader } from '../engines/audio/port.js';
import { AppError } from '../platform/errors/app-error.js';

/** Telephone speech is 8 kHz; studio recorders go up to 192 kHz. Nothing outside is speech audio. */
export const SPEECH_SAMPLE_RATE = { min: 8_000, max: 192_000 } as const;
/** Mono to a 16-track meeting recorder; more is not a recording of speech we mix down. */
export const MAX_CHANNELS = 16;
/**
 * Fewest bytes one second of audio can take in mp3, wav or m4a (2 kbit/s: below the lowest
 * speech codecs, mp3 at 8 kbit/s or AAC HE at 6). A file that decodes to more audio than its
 * bytes can carry is lying somewhere in its headers or frame tables.
 */
export const MIN_BYTES_PER_SECOND = 250;

const refuse = (format: string, reason: string, message: string, extra: Record<string, unknown>) =>
  new AppError('import_invalid_format', { message, details: { detected: format, reason, ...extra } });

/** Before anything is decoded: the header's sample rate and channel count. */
export function assertSpeechHeader(probe: StreamHeader, format: string): void {
  const { min, max } = SPEECH_SAMPLE_RATE;
  if (!(probe.sampleRate >= min && probe.sampleRate <= max)) {
    throw refuse(
      format,
      'sample_rate',
      `The file's header gives a sample rate of ${probe.sampleRate} Hz; speech audio is ${min} to ${max} Hz.`,
      {
        sample_rate: probe.sampleRate,
        min_sample_rate: min,
        max_sample_rate: max,
      },
    );
  }
  if (!(probe.channels >= 1 && probe.channels <= MAX_CHANNELS)) {
    throw refuse(format, 'channels', `The file's header gives ${probe.channels} channels; at most ${MAX_CHANNELS} are accepted.`, {
      channels: probe.channels,
      max_channels: MAX_CHANNELS,
    });
  }
}

/** After decoding: the file's bytes can carry the audio it decoded to. */
export function assertPlausibleDuration(probe: ProbeResult, fileBytes: number, format: string): void {
  const seconds = probe.durationMs / 1000;
  if (seconds > 1 && fileBytes / seconds < MIN_BYTES_PER_SECOND) {
    throw refuse(format, 'implausible_duration', `${fileBytes} bytes cannot hold ${Math.round(seconds)} s of audio.`, {
      file_bytes: fileBytes,
      decoded_ms: probe.durationMs,
      min_bytes_per_second: MIN_BYTES_PER_SECOND,
    });
  }
}
