/**
 * The audience of each recording's subtitle stream, counted where every realtime process
 * sees it: through the presence port (src/presence: in memory for a single process, Redis
 * when several serve viewers; the composition root picks). A recording is one group with no
 * waiting line. A seat is a lease: its process renews it while the viewer is connected, so
 * the seats of a process that died lapse by themselves.
 *
 * A share per source (issue 26): a newcomer names its share keys (its source address, its
 * feed token) and the most any one key may hold (the rule is src/platform/http/source-share.ts,
 * the broadcast viewers' too); when one of its keys already holds that many seats it gets
 * none, so one client cannot take a recording's whole audience.
 */
import type { SourceShare } from '../platform/http/source-share.js';
import type { Presence } from '../presence/types.js';

export type SeatOutcome =
  | { ok: true; count: number }
  /** `full`: the recording's audience is; `share`: one of the newcomer's share keys holds its limit. */
  | { ok: false; count: number; reason: 'full' | 'share' };

export interface AudienceCounter {
  /**
   * Takes a seat for `viewerId` when fewer than `max` are taken and none of `share`'s keys
   * holds `share.limit` seats already (atomic across processes).
   */
  join(taskId: string, viewerId: string, max: number, share?: SourceShare): Promise<SeatOutcome>;
  /** Renews the seat's lease (call at least every SEAT_LEASE_MS / 2); pass the share keys it joined with. */
  renew(taskId: string, viewerId: string, shareKeys?: string[]): Promise<void>;
  /** Frees the seat; resolves with the audience left. */
  leave(taskId: string, viewerId: string, shareKeys?: string[]): Promise<number>;
  count(taskId: string): Promise<number>;
}

export const SEAT_LEASE_MS = 30_000;

/** A recording's presence group (features sharing the presence backend name theirs apart). */
const group = (taskId: string) => `subtitles:${taskId}`;

/** The audience over the presence port, which it does not own (the composition root closes it). */
export function presenceAudience(presence: Presence, leaseMs = SEAT_LEASE_MS): AudienceCounter {
  return {
    async join(taskId, viewerId, max, share) {
      const a = await presence.claim(group(taskId), viewerId, { leaseMs, capacity: max, waitingLine: false, share });
      if (a.outcome === 'held') return { ok: true, count: a.holders };
      return { ok: false, count: a.holders, reason: a.outcome === 'over_share' ? 'share' : 'full' };
    },
    async renew(taskId, viewerId, shareKeys) {
      await presence.renew(group(taskId), viewerId, leaseMs, shareKeys);
    },
    async leave(taskId, viewerId, shareKeys) {
      return (await presence.release(group(taskId), viewerId, shareKeys)).holders;
    },
    async count(taskId) {
      return (await presence.count(group(taskId))).holders;
    },
  };
}
