/**
 * One viewer of a broadcast on this process, as the fan-out room keeps it: a few fields and no
 * closures (thousands of them per room). Captions reach a seated viewer through its group
 * (room.ts: encoded once for the whole group); everything else, and every event of a viewer
 * still joining or queued, is framed here for this viewer alone (display messages in its
 * language, the kick and end frames).
 */
import type { SseFrame, SseStream } from '../../platform/http/sse.js';
import { sharedJson } from '../../platform/http/sse.js';
import type { CatchUpEvent } from '../catch-up/reader.js';
import { type DisplayKey, display } from '../display.js';
import type { ViewerEvent } from '../viewer-events.js';
import type { Group } from './groups.js';

/** What a viewer is sent: a viewer event, its catch-up summary, or the end of its stream (revoked, kicked). */
export type ViewerItem = ViewerEvent | CatchUpEvent | { event: '__end' | '__kick'; data: Record<string, unknown> };

/** Events whose `message` is a display string chosen per viewer. */
const MESSAGE_OF: Record<string, DisplayKey> = {
  paused: 'paused',
  resumed: 'resumed',
  ended: 'ended',
  host_disconnected: 'host_disconnected',
  host_reconnected: 'host_reconnected',
  phase_changed: 'phase_live',
  recording_started: 'recording_started',
  admitted: 'admitted',
};
export const CAPTIONS = new Set(['origin', 'translation']);

export class RoomViewer {
  /** The open stream; null while the viewer is joining (its events wait in `early`). */
  sse: SseStream | null = null;
  early: ViewerItem[] | null = [];
  /** The caption group it is seated in (null: joining, queued or gone) and its place there. */
  group: Group | null = null;
  index = -1;

  constructor(
    readonly id: string,
    /** The one translation language it asked for (null: all). */
    readonly lang: string | null,
    /** It asked for tts_ready audio. */
    readonly listens: boolean,
    /** Display language of its messages. */
    readonly displayLanguage: 'en' | 'zh',
    /** The seat-share keys it claimed with (renewed with its lease). */
    readonly shareKeys: string[],
    /** Its viewer_access_token (password channels: re-checked when the access changes). */
    readonly viewerToken: string | undefined,
    public admitted: boolean,
  ) {}

  msg(key: DisplayKey, values?: Record<string, string | number>): string {
    return display(key, this.displayLanguage, values);
  }

  /** Sends one item framed for this viewer (the path of everything but a seated viewer's captions). */
  deliver(item: ViewerItem): void {
    const s = this.sse;
    if (!s) {
      this.early?.push(item);
      return;
    }
    if (s.closed) return;
    const f = this.frame(item);
    if (!f) return;
    s.send(f.event, f.data, f.id, { interim: f.interim });
    if (f.end) s.close();
  }

  /** The frame of an item for this viewer; null: not for it. */
  frame(item: ViewerItem): SseFrame | null {
    const admitted = this.admitted;
    const lang = this.lang;
    if (item.event === '__end') return { event: 'error', data: item.data, end: true };
    if (item.event === '__kick') return { event: 'kicked', data: { message: this.msg('kicked') }, end: true };
    if (item.event === 'catch_up')
      return admitted ? { event: item.event, data: sharedJson(item.data), id: (item as CatchUpEvent).id } : null;
    const e = item as ViewerEvent;
    // Audio: admitted viewers who asked for it, in their language when they chose one.
    if (e.event === 'tts_ready') {
      if (!admitted || !this.listens || (lang && e.data.language !== lang)) return null;
      return { event: e.event, data: sharedJson(e.data) };
    }
    if (CAPTIONS.has(e.event)) {
      if (!admitted) return null;
      if (e.event === 'translation' && lang && e.data.language !== lang) return null;
      return { event: e.event, data: sharedJson(e.data), interim: e.data.is_final === false };
    }
    if (e.event === 'sentence_corrected') return admitted ? { event: e.event, data: sharedJson(e.data) } : null;
    // A sentence's error goes where its sentence goes: admitted viewers of its language (audio errors: its listeners).
    if (e.event === 'error' && e.data.sid !== undefined) {
      const language = e.data.translation_language as string | undefined;
      if (!admitted || (lang && language && language !== lang)) return null;
      if (e.data.error_code === 'tts_synthesis_failed' && !this.listens) return null;
      return { event: e.event, data: sharedJson(e.data) };
    }
    // standby always carries a message: the host's (with its translations) or the default one.
    const key = MESSAGE_OF[e.event] ?? (e.event === 'standby' && typeof e.data.message !== 'string' ? 'standby' : undefined);
    const data = key ? { ...e.data, message: this.msg(key) } : sharedJson(e.data);
    return { event: e.event, data, end: e.event === 'ended' };
  }
}
