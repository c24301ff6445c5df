/**
 * The recognizers of a multi_channel session: one stream per channel, fed from interleaved
 * 16-bit PCM whose frame holds one sample per channel slot (slot n = channel_id n; the frame
 * width is the highest channel_id in use, so a removed channel below it keeps its slot and
 * its samples are not recognized). A channel's language change ends its stream (the
 * utterance in progress is finalized in the old language) and opens a new one; audio arriving
 * meanwhile is kept for the new stream. What is stored is the mono mix of the active channels.
 */
import type { RecognizerStream } from '../engines/types.js';
import { ChannelCooldown, type ChannelSpec } from './channel-spec.js';
import { type Lane, newLane } from './sentence-ids.js';

const SAMPLES_PER_MS = 16;

/** Opens the recognizer of a channel whose results start at `offsetMs` of the recording. */
export type OpenChannel = (spec: ChannelSpec, offsetMs: number, lane: Lane) => Promise<RecognizerStream>;

interface Channel {
  spec: ChannelSpec;
  stream: RecognizerStream | null;
  /** Audio that arrived while the stream was being rebuilt. */
  pending: Int16Array[] | null;
  /** The rebuild in progress, if any (ended on finish). */
  rebuilding: Promise<void> | null;
  lane: Lane;
}

export class ChannelSet {
  private readonly channels = new Map<number, Channel>();
  /** Samples of an incomplete frame, joined with the next write. */
  private carry = new Int16Array(0);
  /** Frames received so far (the recording's position). */
  private frames = 0;
  /** One setting change per channel per 5 s (channel actions). */
  readonly cooldown = new ChannelCooldown();

  /** `startMs`: where the recording already is (a recording continued on this process). */
  constructor(
    private readonly open: OpenChannel,
    startMs = 0,
  ) {
    this.frames = startMs * SAMPLES_PER_MS;
  }

  /** Opens the start's channels; on failure nothing stays open. */
  async begin(specs: readonly ChannelSpec[]): Promise<void> {
    try {
      for (const spec of specs) await this.add(spec);
    } catch (err) {
      this.abort();
      throw err;
    }
  }

  get ids(): number[] {
    return [...this.channels.keys()].sort((a, b) => a - b);
  }

  get specs(): ChannelSpec[] {
    return this.ids.map((id) => ({ ...(this.channels.get(id) as Channel).spec }));
  }

  language(id: number): string | undefined {
    return this.channels.get(id)?.spec.language;
  }

  /** Samples per interleaved frame. */
  get width(): number {
    return Math.max(0, ...this.channels.keys());
  }

  get positionMs(): number {
    return Math.round(this.frames / SAMPLES_PER_MS);
  }

  async add(spec: ChannelSpec): Promise<void> {
    const lane = newLane();
    const stream = await this.open(spec, this.positionMs, lane);
    // A wider frame from now on: a partial frame of the old layout is dropped.
    if (spec.channelId > this.width) this.carry = new Int16Array(0);
    this.channels.set(spec.channelId, { spec: { ...spec }, stream, pending: null, rebuilding: null, lane });
  }

  /** Stops recognizing a channel (its utterance in progress is finalized). */
  async remove(id: number): Promise<void> {
    const c = this.channels.get(id);
    if (!c) return;
    const before = this.width;
    this.channels.delete(id);
    if (this.width !== before) this.carry = new Int16Array(0);
    await c.rebuilding?.catch(() => {});
    await c.stream?.end();
    c.stream = null;
  }

  /** A new recognizer for the channel's new language, from the current position on. */
  async setLanguage(id: number, language: string): Promise<void> {
    const c = this.channels.get(id);
    if (!c || c.rebuilding) return;
    const old = c.stream;
    c.stream = null;
    c.pending = [];
    const at = this.positionMs;
    c.rebuilding = (async () => {
      try {
        await old?.end();
        c.spec = { ...c.spec, language };
        c.lane = newLane();
        const next = await this.open(c.spec, at, c.lane);
        for (const chunk of c.pending ?? []) next.write(chunk);
        if (this.channels.get(id) === c) c.stream = next;
        else void next.end();
      } finally {
        c.pending = null;
        c.rebuilding = null;
      }
    })();
    await c.rebuilding;
  }

  /** Splits interleaved PCM among the channels; returns the mono mix of the active ones (what is stored). */
  write(interleaved: Int16Array): Int16Array {
    const width = this.width;
    if (width === 0) return new Int16Array(0);
    const all = this.carry.length ? concat(this.carry, interleaved) : interleaved;
    const frames = Math.floor(all.length / width);
    this.carry = all.slice(frames * width);
    this.frames += frames;
    const active = [...this.channels.values()];
    const mix = new Int32Array(frames);
    for (const c of active) {
      const slot = c.spec.channelId - 1;
      const mono = new Int16Array(frames);
      for (let f = 0; f < frames; f++) {
        const v = all[f * width + slot] as number;
        mono[f] = v;
        mix[f] = (mix[f] as number) + v;
      }
      if (c.pending) c.pending.push(mono);
      else c.stream?.write(mono);
    }
    const out = new Int16Array(frames);
    for (let f = 0; f < frames; f++) out[f] = Math.round((mix[f] as number) / active.length);
    return out;
  }

  /** Finalizes every channel's utterance in progress. */
  async end(): Promise<void> {
    const all = [...this.channels.values()];
    await Promise.all(all.map((c) => c.rebuilding?.catch(() => {})));
    await Promise.all(all.map((c) => c.stream?.end()));
    for (const c of all) c.stream = null;
  }

  abort(): void {
    for (const c of this.channels.values()) {
      c.stream?.abort();
      c.stream = null;
    }
  }
}

function concat(a: Int16Array, b: Int16Array): Int16Array {
  const out = new Int16Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
