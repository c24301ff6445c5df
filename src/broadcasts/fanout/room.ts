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
import type { Broadcast } from '../store.js';
import type { ViewerEvent } from '../viewer-events.js';
import { Group, groupAudience, groupKey } from './groups.js';
import { CAPTIONS, type RoomViewer, type ViewerItem } from './viewer.js';

/** How long joining viewers share one read of the room's state when no event comes. */
const STATE_MS = 1_000;
/**
 * How long joining viewers share one read of the broadcast's row when no state event comes: a
 * host writes some changes just after announcing them (go-live, the end), and a bus message
 * may be lost, so a row is never trusted longer than this.
 */
export const FACTS_MS = 1_000;
/**
 * A room this large fed by a remote bus gathers its caption frames for REMOTE_GATHER_MS
 * before writing (issue 30): each write is a syscall per viewer, and over Redis the messages
 * published together (a caption's origin and translation) arrive a round trip apart, so
 * writing at the end of each tick cost one write per viewer per message instead of one. With
 * the in-process bus they arrive in one tick and the end-of-tick write already joins them;
 * smaller rooms write at once too (their writes are cheap, and every millisecond shows).
 */
const GATHER_VIEWERS = 500;
/** How long such a room gathers (hub.ts passes it for a remote bus, 0 otherwise). */
export const REMOTE_GATHER_MS = 5;

interface Facts {
  at: number;
  /** The room's epoch when the read began: a state event since makes it stale. */
  epoch: number;
  row: Promise<Broadcast | null>;
}

export class ViewerRoom {
  private readonly groups = new Map<string, Group<RoomViewer>>();
  /** Viewers joining or queued: framed one by one. */
  private readonly unseated = new Set<RoomViewer>();
  private scheduled = false;
  private count = 0;
  /** What joining viewers read of the bus (the retained log): shared until an event comes or it ages. */
  private state: { at: number; value: Promise<unknown> } | null = null;
  /** The broadcast's row (its admission facts: status, phase, access, languages, max_viewers) as read for joiners. */
  private facts: Facts | null = null;
  /** Counts the state events (anything but captions, audio and corrections): a row read before one is not reused. */
  private epoch = 0;
  /** The share token its viewers came with (the hub's index of rooms by token). */
  token: string | null = null;
  /** The unsubscribe of the room's bus subscription, once live. */
  off: (() => void) | null = null;
  closed = false;

  constructor(
    readonly broadcastId: string,
    /** max_viewers as last heard (max_viewers_changed): what a queued viewer claims against. */
    public maxViewers: number,
    private readonly onAccessChanged: (room: ViewerRoom) => void,
    /** How long a large room waits for more frames before writing (0: end of the tick). */
    private readonly gatherMs = 0,
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

  /**
   * The broadcast's row for admitting viewers, read once for all the viewers joining within
   * FACTS_MS and with no state event between (each viewer no longer reads it: one read per room,
   * not per viewer). Only a read begun after the room's subscription was live may be shared
   * (the hub's `row`), so any change announced since is seen; a row that is not active is not shared.
   */
  row(read: () => Promise<Broadcast | null>, now = Date.now()): Promise<Broadcast | null> {
    const f = this.facts;
    if (f && f.epoch === this.epoch && now - f.at <= FACTS_MS) return f.row;
    const entry: Facts = { at: now, epoch: this.epoch, row: read() };
    this.facts = entry;
    const forget = () => {
      if (this.facts === entry) this.facts = null;
    };
    entry.row.then((r) => {
      if (r?.status !== 'active') forget();
    }, forget);
    return entry.row;
  }

  /** Something a viewer is admitted by may have changed: the next joiner reads the row again. */
  private stateChanged(): void {
    this.epoch++;
    this.facts = null;
  }

  onEvent(e: ViewerEvent): void {
    this.state = null;
    if (this.closed) return;
    if (e.event === 'access_changed') {
      this.stateChanged();
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
    // Every event framed per viewer is a state event (phase, end, revoke, max_viewers, speakers...).
    this.stateChanged();
    this.flush();
    for (const v of this.viewers()) v.deliver(item);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (this.gatherMs > 0 && this.count >= GATHER_VIEWERS) setTimeout(() => this.flush(), this.gatherMs);
    else setImmediate(() => this.flush());
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
