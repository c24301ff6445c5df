/**
 * Caption groups: the seated viewers of one broadcast on this process that get the same
 * caption bytes, one group per (translation language asked for, audio or not). A caption is
 * encoded once per event and the same bytes are queued for every group that gets it; at the
 * end of the tick each group's frames are joined into one buffer and that one buffer is
 * written to each of its viewers: one write a viewer a tick, no per-viewer object or JSON.
 */
import type { SseStream } from '../../platform/http/sse.js';
import type { ViewerEvent } from '../viewer-events.js';

/** What a group needs of a viewer (GroupMember, viewer.ts): its place in the group and its stream. */
export interface GroupMember {
  group: Group | null;
  index: number;
  sse: Pick<SseStream, 'sendEncoded'> | null;
}

export class Group<V extends GroupMember = GroupMember> {
  /** Seated viewers; a viewer knows its index, so leaving is a swap with the last one. */
  readonly viewers: V[] = [];
  /** Frames of this tick not written yet, and whether every one of them is an interim caption. */
  pending: Buffer[] = [];
  pendingInterim = true;

  constructor(
    readonly lang: string | null,
    readonly listens: boolean,
  ) {}

  add(v: V): void {
    v.group = this;
    v.index = this.viewers.length;
    this.viewers.push(v);
  }

  remove(v: V): void {
    if (v.group !== this) return;
    const last = this.viewers.pop() as V;
    if (last !== v) {
      this.viewers[v.index] = last;
      last.index = v.index;
    }
    v.group = null;
    v.index = -1;
  }

  queue(frame: Buffer, interim: boolean): void {
    this.pending.push(frame);
    if (!interim) this.pendingInterim = false;
  }

  /** Writes this tick's frames to every viewer of the group (one buffer each). */
  flush(): void {
    const n = this.pending.length;
    if (n === 0) return;
    const bytes = n === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    const interim = this.pendingInterim;
    this.pending = [];
    this.pendingInterim = true;
    const options = interim ? INTERIM : FINAL;
    for (let i = 0; i < this.viewers.length; i++) this.viewers[i]?.sse?.sendEncoded(bytes, options);
  }
}

const INTERIM = { interim: true };
const FINAL = { interim: false };

export function groupKey(lang: string | null, listens: boolean): string {
  return `${lang ?? '*'}|${listens ? 1 : 0}`;
}

/**
 * Whether an event goes to seated viewers by group and, if so, which groups get it (the same
 * rules as GroupMember.frame for an admitted viewer); null: framed per viewer (rare events).
 */
export function groupAudience(e: ViewerEvent): ((g: Group) => boolean) | null {
  const language = e.data.language as string | undefined;
  switch (e.event) {
    case 'origin':
    case 'sentence_corrected':
      return ALL;
    case 'translation':
      return (g) => !g.lang || g.lang === language;
    case 'tts_ready':
      return (g) => g.listens && (!g.lang || g.lang === language);
    case 'error': {
      if (e.data.sid === undefined) return null;
      const sentenceLanguage = e.data.translation_language as string | undefined;
      const audio = e.data.error_code === 'tts_synthesis_failed';
      return (g) => (!audio || g.listens) && (!g.lang || !sentenceLanguage || sentenceLanguage === g.lang);
    }
    default:
      return null;
  }
}

const ALL = () => true;
