/**
 * Container format detection from content (magic bytes), never from a file name.
 * Imports accept only mp3, wav and m4a; everything else is named so callers can refuse it.
 */
export type AudioContainer = 'mp3' | 'wav' | 'm4a' | 'webm' | 'flac' | 'ogg' | 'unknown';

/** Looks at the first bytes (64 are enough; 4 KB lets an ID3 tag be skipped). */
export function detectAudioFormat(head: Uint8Array): AudioContainer {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WAVE') return 'wav';
  if (b.length >= 4 && b.toString('latin1', 0, 4) === 'fLaC') return 'flac';
  if (b.length >= 4 && b.toString('latin1', 0, 4) === 'OggS') return 'ogg';
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'webm';
  if (b.length >= 12 && b.toString('latin1', 4, 8) === 'ftyp') {
    const brand = b.toString('latin1', 8, 12);
    // M4A/MP4 audio brands; 3GP and QuickTime are MP4 family containers too.
    if (/^(M4A |M4B |mp4[12]|isom|iso[2-9]|dash|3gp[0-9]|qt {2}|MSNV|avc1)$/.test(brand)) return 'm4a';
    return 'm4a';
  }
  if (b.length >= 10 && b.toString('latin1', 0, 3) === 'ID3') {
    // Skip the ID3v2 tag (syncsafe size) and expect an MPEG frame after it.
    const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f);
    const at = 10 + size + (b[5]! & 0x10 ? 10 : 0);
    if (at + 2 > b.length) return 'mp3'; // tag longer than what we read: an ID3 tag means MP3 here
    return isMpegFrame(b, at) ? 'mp3' : 'unknown';
  }
  if (isMpegFrame(b, 0) && isMpegFrame(b, nextFrame(b, 0))) return 'mp3';
  return 'unknown';
}

function isMpegFrame(b: Buffer, at: number): boolean {
  if (at < 0 || at + 4 > b.length) return false;
  // 11 sync bits, MPEG version not reserved, layer not reserved, bitrate not bad, rate not reserved.
  return (
    b[at] === 0xff &&
    (b[at + 1]! & 0xe0) === 0xe0 &&
    (b[at + 1]! & 0x18) !== 0x08 &&
    (b[at + 1]! & 0x06) !== 0 &&
    (b[at + 2]! & 0xf0) !== 0xf0 &&
    (b[at + 2]! & 0x0c) !== 0x0c
  );
}

/** Offset of the frame after the one at `at` (MPEG-1/2 Layer III), or -1. */
function nextFrame(b: Buffer, at: number): number {
  if (!isMpegFrame(b, at)) return -1;
  const v1 = (b[at + 1]! & 0x18) === 0x18;
  const bitrateIndex = b[at + 2]! >> 4;
  const rateIndex = (b[at + 2]! >> 2) & 3;
  const padding = (b[at + 2]! >> 1) & 1;
  const kbpsV1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
  const kbpsV2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
  const rates = v1 ? [44100, 48000, 32000] : [22050, 24000, 16000];
  const kbps = (v1 ? kbpsV1 : kbpsV2)[bitrateIndex] ?? 0;
  const rate = rates[rateIndex] ?? 0;
  if (!kbps || !rate) return -1;
  const len = Math.floor(((v1 ? 144 : 72) * kbps * 1000) / rate) + padding;
  // When the next frame is beyond what was read, accept the first one alone.
  return at + len + 4 > b.length ? at : at + len;
}
