/**
 * The viewers of one broadcast on this process, fed by one bus subscription (hub.ts). Seated
 * viewers sit in caption groups (groups.ts): a caption, audio or sentence error is encoded
 * once and its bytes written to each viewer of the groups that get it, batched per tick.
 * Viewers still joining (their stream not open: events wait in order) or queued for a seat,
 * and the rare state events (pause, end, standby, ...: display text per viewer), go through
 * the per-viewer path (viewer.ts). Before any per-viewer event, the tick's caption frames
 * are written, so every viewer sees the events in the order they were published.
 */
import { encodeSseFrame } from '../../platform/http/sse.js';
import type { ViewerEvent } from '../viewer-events.js';
import { Group, groupAudience, groupKey } from './groups.js';
import { CAPTIONS, type RoomViewer, type ViewerItem } from './viewer.js';

/** How long joining viewers share one read of the room's state when no event comes. */
const STATE_MS = 1_000;

export class ViewerRoom {
  private readonly groups = new Map<string, Group<RoomViewer>>();
  /** Viewers joining or queued: framed one by one. */
  private readonly unseated = new Set<RoomViewer>();
  private scheduled = false;
  private count = 0;
  /** What joining viewers read (retained log, broadcast row): shared until an event comes or it ages. */
  private state: { at: number; value: Promise<unknown> } | null = null;
  /** The unsubscribe of the room's bus subscription, once live. */
  off: (() => void) | null = null;
  closed = false;

  constructor(
    readonly broadcastId: string,
    /** max_viewers as last heard (max_viewers_changed): what a queued viewer claims against. */
    public maxViewers: number,
    private readonly onAccessChanged: (room: ViewerRoom) => void,
  ) {}

  get size(): number {
    return this.count;
  }

  /** A viewer starts joining: from now on it is sent every event (kept until its stream opens). */
  add(v: RoomViewer): void {
    this.unseated.add(v);
    this.count++;
  }

  /**
   * Its stream is open: its initial items (catch-up, replay or standby) are sent, then what
   * came while it joined, then (admitted) it takes its caption group.
   */
  open(v: RoomViewer, sse: NonNullable<RoomViewer['sse']>, initial: ViewerItem[]): void {
    const early = v.early ?? [];
    v.early = null;
    v.sse = sse;
    for (const item of initial) v.deliver(item);
    for (const item of early) v.deliver(item);
    if (v.admitted) this.seat(v);
  }

  /** An admitted viewer gets captions through its group from now on. */
  seat(v: RoomViewer): void {
    if (v.group || v.sse === null || !this.unseated.has(v)) return;
    this.flush(); // frames of this tick came before it was seated
    this.unseated.delete(v);
    const key = groupKey(v.lang, v.listens);
    let g = this.groups.get(key);
    if (!g) {
      g = new Group<RoomViewer>(v.lang, v.listens);
      this.groups.set(key, g);
    }
    g.add(v);
  }

  remove(v: RoomViewer): void {
    const g = v.group;
    if (g) {
      g.remove(v);
      if (g.viewers.length === 0) {
        g.pending = [];
        this.groups.delete(groupKey(g.lang, g.listens));
      }
    } else if (!this.unseated.delete(v)) return;
    this.count--;
  }

  /** Every viewer of the room (a copy: delivering may end streams). */
  viewers(): RoomViewer[] {
    const all: RoomViewer[] = [...this.unseated];
    for (const g of this.groups.values()) all.push(...g.viewers);
    return all;
  }

  /**
   * The state a joining viewer reads after its subscription is live, read once for all the
   * viewers joining together: any event (or STATE_MS) makes the next joiner read it again, so
   * none misses what came after its own subscription. The replayed events are then the same
   * objects for all of them, serialized once.
   */
  joinState<T>(read: () => Promise<T>, now = Date.now()): Promise<T> {
    if (!this.state || now - this.state.at > STATE_MS) {
      const value = read();
      this.state = { at: now, value };
      value.catch(() => {
        if (this.state?.value === value) this.state = null;
      });
    }
    return this.state.value as Promise<T>;
  }

  onEvent(e: ViewerEvent): void {
    this.state = null;
    if (this.closed) return;
    if (e.event === 'access_changed') {
      this.onAccessChanged(this);
      return;
    }
    if (e.event === 'max_viewers_changed') this.maxViewers = Number(e.data.max_viewers) || this.maxViewers;
    const audience = groupAudience(e);
    if (!audience) {
      this.toEach(e);
      return;
    }
    let bytes: Buffer | null = null;
    const interim = CAPTIONS.has(e.event) && e.data.is_final === false;
    for (const g of this.groups.values()) {
      if (!audience(g)) continue;
      bytes ??= encodeSseFrame(e.event, e.data);
      g.queue(bytes, interim);
    }
    if (bytes) this.schedule();
    for (const v of this.unseated) v.deliver(e);
  }

  /** One item framed per viewer for everyone, after the captions already queued. */
  toEach(item: ViewerItem): void {
    this.state = null;
    this.flush();
    for (const v of this.viewers()) v.deliver(item);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Writes the tick's caption frames: one buffer per group, the same to each of its viewers. */
  flush(): void {
    this.scheduled = false;
    for (const g of this.groups.values()) g.flush();
  }

  close(): void {
    this.closed = true;
    this.off?.();
    this.off = null;
  }
}
