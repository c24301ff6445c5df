/**
 * The viewer fan-out of one process: one room per broadcast with viewers here (room.ts), each
 * fed by ONE bus subscription to the broadcast's viewer topic however many viewers it has, one
 * subscription to revokes for all rooms, and one heartbeat timer for every viewer (a comment
 * line, and its seat lease renewed). A viewer costs a few fields in its room, never a bus
 * handler, a timer or a closure of its own. Rooms go when their last viewer leaves.
 */
import type { Logger } from 'pino';
import type { EventBus } from '../../bus/types.js';
import { AppError, toErrorObject } from '../../platform/errors/app-error.js';
import type { SseStream } from '../../platform/http/sse.js';
import { BROADCAST_REVOKED_TOPIC } from '../events.js';
import type { ViewerSeats } from '../seats.js';
import type { Broadcast } from '../store.js';
import { viewerTopic } from '../viewer-events.js';
import { REMOTE_GATHER_MS, ViewerRoom } from './room.js';
import type { RoomViewer } from './viewer.js';

/**
 * Seats renewed in one presence call. On Redis it is one Lua script, and Redis serves nobody
 * else meanwhile: 500 members with a share key each took 3-4 ms a call here, so batches stay
 * at half that (~2 ms), still a hundred times fewer calls than one per viewer.
 */
const RENEW_BATCH = 250;

export interface ViewerFanoutDeps {
  bus: EventBus;
  seats: ViewerSeats;
  /** Heartbeat period (spec: 15 s) and the seat lease each heartbeat renews. */
  heartbeatMs: number;
  leaseMs: number;
  /** The broadcast's row (read once per room for its joining viewers: ViewerRoom.row). */
  read(broadcastId: string): Promise<Broadcast | null>;
  /** May this viewer token read the broadcast as it is now (re-checked after its access changed)? */
  admits(b: Broadcast, viewerToken: string | undefined): Promise<boolean>;
  logger?: Pick<Logger, 'warn'>;
}

export class ViewerFanout {
  private readonly rooms = new Map<string, ViewerRoom>();
  /** Rooms by the share token their viewers came with: a viewer of a room here needs no lookup of the token. */
  private readonly byToken = new Map<string, ViewerRoom>();
  /** The live subscriptions: each room's (and ready), and the revoke topic's. */
  private readonly ready = new WeakMap<ViewerRoom, Promise<void>>();
  private revokes: Promise<unknown> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private readonly d: ViewerFanoutDeps) {}

  /** Viewers of a broadcast on this process (metrics, tests). */
  viewerCount(broadcastId: string): number {
    return this.rooms.get(broadcastId)?.size ?? 0;
  }

  /**
   * The broadcast a share token names, when this process has a room of it whose shared row is
   * active (ViewerRoom.row: at most one read per room a second, none per viewer); null: look it
   * up (no room here, or the room's broadcast is no longer active: the token may name another now).
   */
  async admissionFacts(token: string): Promise<Broadcast | null> {
    const room = this.byToken.get(token);
    if (!room || room.closed) return null;
    try {
      // Shared only once the room's subscription is live, so no change announced after the read is missed.
      await this.ready.get(room);
      const row = await this.row(room);
      return row?.status === 'active' && row.token === token ? row : null;
    } catch {
      return null;
    }
  }

  /** The room's broadcast as its joining viewers share it (read after its subscription is live). */
  row(room: ViewerRoom): Promise<Broadcast | null> {
    return room.row(() => this.d.read(room.broadcastId));
  }

  /** Adds a joining viewer; resolves once the room's subscription is live (events from then on reach it). */
  async join(broadcast: { id: string; token: string; maxViewers: number }, v: RoomViewer): Promise<ViewerRoom> {
    const broadcastId = broadcast.id;
    let room = this.rooms.get(broadcastId);
    if (!room) {
      const r = new ViewerRoom(
        broadcastId,
        broadcast.maxViewers,
        (changed) => void this.recheckAccess(changed),
        this.d.bus.remote ? REMOTE_GATHER_MS : 0,
      );
      room = r;
      this.rooms.set(broadcastId, r);
      this.byToken.set(broadcast.token, r);
      r.token = broadcast.token;
      this.ready.set(
        r,
        this.d.bus
          .subscribe(viewerTopic(broadcastId), (e) => r.onEvent(e))
          .then((off) => {
            if (r.closed) off();
            else r.off = off;
          }),
      );
      this.startHeartbeat();
    }
    room.add(v);
    try {
      this.revokes ??= this.d.bus.subscribe(BROADCAST_REVOKED_TOPIC, (m) => this.revoked(m.broadcast_id));
      await Promise.all([this.ready.get(room), this.revokes]);
    } catch (err) {
      this.leave(room, v);
      this.forget(room);
      this.revokes = null;
      throw err;
    }
    return room;
  }

  /** Once the viewer's stream closes: `onClose` (a queued viewer's poll), its room place and its seat go. */
  follow(room: ViewerRoom, v: RoomViewer, sse: SseStream, onClose: (() => void) | null): void {
    void sse.done.then(async () => {
      onClose?.();
      this.leave(room, v);
      await this.d.seats
        .leave(room.broadcastId, v.id, v.shareKeys)
        .catch((err: unknown) => this.d.logger?.warn({ err }, 'seat not released'));
    });
  }

  leave(room: ViewerRoom, v: RoomViewer): void {
    room.remove(v);
    if (room.size > 0) return;
    this.forget(room);
    room.close();
    if (this.rooms.size === 0 && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = null;
    }
  }

  private forget(room: ViewerRoom): void {
    if (this.rooms.get(room.broadcastId) === room) this.rooms.delete(room.broadcastId);
    if (room.token !== null && this.byToken.get(room.token) === room) this.byToken.delete(room.token);
  }

  private revoked(broadcastId: string): void {
    const room = this.rooms.get(broadcastId);
    if (!room) return;
    room.toEach({ event: '__end', data: { ...toErrorObject(new AppError('broadcast_token_revoked', { variant: 'sse' })) } });
  }

  /** The host changed the access: viewers whose token no longer opens it are kicked (the row read once for all). */
  private async recheckAccess(room: ViewerRoom): Promise<void> {
    let now: Broadcast | null;
    try {
      now = await this.d.read(room.broadcastId);
    } catch (err) {
      this.d.logger?.warn({ err }, 'access re-check failed');
      return;
    }
    for (const v of room.viewers()) {
      try {
        if (now === null || !(await this.d.admits(now, v.viewerToken))) v.deliver({ event: '__kick', data: {} });
      } catch (err) {
        this.d.logger?.warn({ err }, 'access re-check failed');
      }
    }
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => this.beat(), this.d.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * Every viewer: a heartbeat comment (skipped by a busy stream) and its seat renewed, the
   * seats of a room RENEW_BATCH at a time (one presence call each: with Redis, one round trip
   * for hundreds of viewers, not one per viewer: 19,000 of them stalled a process's captions).
   */
  private beat(): void {
    for (const room of this.rooms.values()) {
      const due: RoomViewer[] = [];
      for (const v of room.viewers()) {
        if (!v.sse || v.sse.closed) continue;
        v.sse.comment('heartbeat');
        due.push(v);
      }
      for (let i = 0; i < due.length; i += RENEW_BATCH) {
        this.d.seats
          .renewMany(room.broadcastId, due.slice(i, i + RENEW_BATCH), this.d.leaseMs)
          .catch((err: unknown) => this.d.logger?.warn({ err }, 'seat leases not renewed'));
      }
    }
  }
}
