/**
 * Viewer seats of broadcasts, counted across every process of a deployment: at most
 * `max_viewers` viewers hold a seat; the others wait in a first-come queue and are admitted
 * in order as seats free. Seats and queue places are leases: the viewer's stream renews
 * its lease with each heartbeat, so a process that dies releases its viewers' seats when
 * their leases lapse. The counting is the presence port's (src/presence: in memory for one
 * process, Redis for several, picked by the composition root): a broadcast is one group
 * with a waiting line, and a claim checks and takes atomically there.
 *
 * A share per source: a newcomer names its share keys (its source address, its viewer access
 * token) and the most any one key may hold, seats and queue places together; when one of its
 * keys already holds that many it gets neither (`overShare`). The check is only for newcomers:
 * a queued viewer taking a seat keeps its count, so nobody waits behind a source at its share.
 */
import type { SourceShare } from '../platform/http/source-share.js';
import type { ClaimAnswer, Presence } from '../presence/types.js';

export type SeatAnswer =
  | { admitted: true; viewers: number }
  | { admitted: false; position: number; viewers: number }
  /** One of the newcomer's share keys already holds its limit. */
  | { admitted: false; overShare: string; viewers: number };

/** What one source (address, viewer token) may hold of a room: `limit` seats and queue places together. */
export type SeatShare = SourceShare;

export interface SeatCounts {
  viewers: number;
  queued: number;
}

export interface ViewerSeats {
  /**
   * Takes a seat when one is free and nobody queued before this viewer, else queues it (or
   * keeps its place). Also renews the lease of a viewer that already holds a seat. A newcomer
   * with a `share` is refused when one of its keys holds `share.limit` already.
   */
  claim(broadcastId: string, viewerId: string, max: number, leaseMs: number, share?: SeatShare): Promise<SeatAnswer>;
  /**
   * Renews the seats or queue places of many viewers of one broadcast at once (a heartbeat's):
   * per viewer, false when it holds neither any more. Pass the share keys each claimed with.
   */
  renewMany(broadcastId: string, viewers: readonly { id: string; shareKeys?: readonly string[] }[], leaseMs: number): Promise<boolean[]>;
  leave(broadcastId: string, viewerId: string, shareKeys?: string[]): Promise<void>;
  counts(broadcastId: string): Promise<SeatCounts>;
}

/** A broadcast's presence group (features sharing the presence backend name theirs apart). */
const group = (broadcastId: string) => `seats:${broadcastId}`;

function seatAnswer(a: ClaimAnswer): SeatAnswer {
  switch (a.outcome) {
    case 'held':
      return { admitted: true, viewers: a.holders };
    case 'waiting':
      return { admitted: false, position: a.position, viewers: a.holders };
    case 'over_share':
      return { admitted: false, overShare: a.key, viewers: a.holders };
    default:
      // A claim with a waiting line is never answered `full`.
      throw new Error(`unexpected seat claim outcome: ${a.outcome}`);
  }
}

/**
 * The seats over the presence port. The seats do not own it (the composition root closes it),
 * and add no round trip: each call is one presence call, so the in-memory path stays O(1) for
 * the fan-out's admissions and heartbeat renewals (fanout/hub.ts).
 */
export function presenceSeats(presence: Presence): ViewerSeats {
  return {
    claim: (broadcastId, viewerId, max, leaseMs, share) =>
      presence.claim(group(broadcastId), viewerId, { leaseMs, capacity: max, waitingLine: true, share }).then(seatAnswer),
    renewMany: (broadcastId, viewers, leaseMs) =>
      presence.renewMany(
        group(broadcastId),
        viewers.map((v) => ({ member: v.id, shareKeys: v.shareKeys })),
        leaseMs,
      ),
    leave: async (broadcastId, viewerId, shareKeys) => {
      await presence.release(group(broadcastId), viewerId, shareKeys);
    },
    counts: (broadcastId) => presence.count(group(broadcastId)).then((c) => ({ viewers: c.holders, queued: c.waiting })),
  };
}
