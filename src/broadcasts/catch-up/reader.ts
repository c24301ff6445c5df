/**
 * The viewer side: the `catch_up` event a viewer gets first when it joins (viewer-stream.ts),
 * from the summary the hosting node stored. Every join reads it, so each process keeps what it
 * read for a few seconds (one read for a crowd joining at once) and one payload object per
 * revision and language (serialized once for all of its viewers, as captions are).
 */
import { Type } from 'typebox';
import type { Broadcast } from '../store.js';
import type { CatchUp, CatchUpStore } from './store.js';
import { clock } from './text.js';

/** The viewer event (spec "SSE: broadcast viewer" extension; docs/broadcasts.md, "Catch-up for late joiners"). */
export const CatchUpPayload = Type.Object({
  text: Type.String({ description: 'Plain text; lines starting with "- " are list items' }),
  language: Type.String({
    description: "The language of the text: the viewer's lang, else the spoken language (also when no translator serves lang)",
  }),
  covers_from: Type.String({ description: 'mm:ss from go-live (as origin.start_time): the first sentence summarized started here' }),
  covers_to: Type.String({
    description: 'mm:ss from go-live: the last sentence summarized started here; captions after it are not in the summary',
  }),
  generated_at: Type.String({ format: 'date-time' }),
});

export interface CatchUpData {
  text: string;
  language: string;
  covers_from: string;
  covers_to: string;
  generated_at: string;
}

export interface CatchUpEvent {
  event: 'catch_up';
  /** The SSE id: a reconnecting EventSource sends it back (Last-Event-ID) and the same summary is not sent again. */
  id: string;
  data: CatchUpData;
}

/** How long a process reuses a summary it read (a new one is written every few minutes). */
const FRESH_MS = 5_000;
const MAX_CACHED = 1_000;

interface Cached {
  at: number;
  read: Promise<CatchUp | null>;
  events: Map<string, CatchUpEvent>;
}

export class CatchUpReader {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly store: CatchUpStore,
    private readonly clockMs: () => number = () => Date.now(),
  ) {}

  /**
   * The catch-up event for a viewer of `b` reading `lang` (null: the spoken language), or null:
   * the host turned it off, nothing was summarized yet, or `lastEventId` says this viewer has it.
   */
  async forViewer(b: Broadcast, lang: string | null, lastEventId?: string): Promise<CatchUpEvent | null> {
    if (!b.catchUp) return null;
    const entry = this.entry(b.id);
    // A summary that cannot be read is left out: the viewer still gets the captions.
    const stored = await entry.read.catch(() => null);
    if (!stored) return null;
    const wanted = lang && stored.texts[lang] ? lang : stored.sourceLanguage;
    const text = stored.texts[wanted];
    if (!text) return null;
    const id = `catch_up:${stored.revision}`;
    if (lastEventId === id) return null;
    const key = `${stored.revision}:${wanted}`;
    let event = entry.events.get(key);
    if (!event) {
      event = {
        event: 'catch_up',
        id,
        data: {
          text,
          language: wanted,
          covers_from: clock(stored.coversFromMs),
          covers_to: clock(stored.coversToMs),
          generated_at: stored.generatedAt,
        },
      };
      entry.events.set(key, event);
    }
    return event;
  }

  private entry(broadcastId: string): Cached {
    const now = this.clockMs();
    const cached = this.cache.get(broadcastId);
    if (cached && now - cached.at < FRESH_MS) return cached;
    if (this.cache.size >= MAX_CACHED) {
      for (const [id, c] of this.cache) if (now - c.at >= FRESH_MS) this.cache.delete(id);
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
    }
    const read = this.store.get(broadcastId);
    const fresh: Cached = { at: now, read, events: new Map() };
    // A failed read is not kept: the next join asks again.
    read.catch(() => this.cache.delete(broadcastId));
    this.cache.set(broadcastId, fresh);
    return fresh;
  }
}
