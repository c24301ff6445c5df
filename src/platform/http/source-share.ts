/**
 * The share rule of audience seats, one place for every audience that counts seats per source
 * (broadcast viewers, floating-subtitle audiences; issue 26): a source (its address by
 * `sourceOf`, and the token it watches with) may hold at most `percent` of a room's seats, and
 * never fewer than `min`, so that one client cannot take a whole audience while a household
 * or a small office behind one address still fits. Each area keeps its own percent and
 * minimum in its settings; the arithmetic and the shape of a share are here.
 */

/** What one source may hold: `percent` of the room's seats, never fewer than `min`. */
export interface SourceShareRule {
  percent: number;
  min: number;
}

/** A newcomer's share keys (its source, its token) and the most any one of them may hold. */
export interface SourceShare {
  keys: string[];
  limit: number;
}

/** Seats (with the broadcast's queue places) one source may hold of a room of `seats`. */
export function seatsPerSource(rule: SourceShareRule, seats: number): number {
  return Math.max(rule.min, Math.ceil((seats * rule.percent) / 100));
}
