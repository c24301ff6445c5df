/**
 * Presence: leased counts of who is in a group right now, shared by every process of a
 * deployment (broadcast viewer seats, floating-subtitle audiences). A member holds a place in
 * a group through a lease that lapses unless its process renews it, so the places of a
 * process that died free themselves. A claim can be bounded: at most `capacity` members hold
 * a place; past it a newcomer waits in a first-come line (and takes a place, in line order, as
 * places free) or is refused. A newcomer may also name share keys (its source address, its
 * token): when one of them already holds `share.limit` places (held and waiting together) it
 * gets none, so one client cannot take a whole group.
 *
 * Every claim is one atomic step (check and take together) on its backend: in memory for one
 * process (in-memory.ts, the embedded default), in Redis for several (redis.ts, one Lua
 * script). The composition root picks one beside the bus; features get this interface.
 * Groups are named by the feature (`<feature>:<id>`), so features sharing one backend never
 * count each other's members.
 */

/** A newcomer's share keys and the most places (held and waiting together) any one of them may hold in the group. */
export interface ShareTerms {
  keys: readonly string[];
  limit: number;
}

export interface ClaimTerms {
  /** How long the place is held from now unless renewed (ms). */
  leaseMs: number;
  /** The most members holding a place at once. */
  capacity: number;
  /**
   * Past capacity: true, a newcomer waits in the group's first-come line (answered with its
   * position) and a waiting member takes a place once fewer than `capacity` hold one and
   * nobody waits before it; false, it is refused (`full`).
   */
  waitingLine: boolean;
  /** Checked for newcomers only: a member already holding or waiting keeps its place. */
  share?: ShareTerms;
}

export type ClaimAnswer =
  /** The member holds a place (now, or already: its lease is renewed). `holders` counts it. */
  | { outcome: 'held'; holders: number }
  /** The member waits in line at `position` (1 is next); its lease is renewed. */
  | { outcome: 'waiting'; position: number; holders: number }
  /** No place and no line (`waitingLine: false`): nothing was taken. */
  | { outcome: 'full'; holders: number }
  /** `key`, one of the newcomer's share keys, holds its limit already: nothing was taken. */
  | { outcome: 'over_share'; key: string; holders: number };

export interface PresenceCounts {
  /** Members holding a place (leases not lapsed). */
  holders: number;
  /** Members waiting in line. */
  waiting: number;
}

/** A member whose lease is renewed, with the share keys it claimed with. */
export interface Renewal {
  member: string;
  shareKeys?: readonly string[];
}

export interface Presence {
  /**
   * Takes a place in `group` for `member` when the terms allow it, else a place in line (or
   * nothing); a member already holding or waiting renews its lease (and a waiting one takes a
   * place when its turn has come). Atomic across every process sharing the backend.
   */
  claim(group: string, member: string, terms: ClaimTerms): Promise<ClaimAnswer>;
  /**
   * Moves the end of the member's lease (held or waiting) to `leaseMs` from now; false when it
   * holds nothing any more (released, or its lease lapsed: a lapsed place is never revived).
   * Pass the share keys it claimed with, so they are renewed with it.
   */
  renew(group: string, member: string, leaseMs: number, shareKeys?: readonly string[]): Promise<boolean>;
  /**
   * `renew` for many members of one group in one step (one round trip on Redis: a broadcast
   * node renews tens of thousands of seats each heartbeat); an answer per member, in order.
   */
  renewMany(group: string, members: readonly Renewal[], leaseMs: number): Promise<boolean[]>;
  /** Frees the member's place or place in line (and its share keys'); resolves with the group's counts after it. */
  release(group: string, member: string, shareKeys?: readonly string[]): Promise<PresenceCounts>;
  count(group: string): Promise<PresenceCounts>;
  close(): Promise<void>;
}
