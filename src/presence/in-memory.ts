/**
 * Presence in this process's memory: the embedded default, for a deployment of one process.
 * The fan-out admits and renews every viewer through it, so a claim, a renewal and a release
 * cost O(1) (a waiting member asking again finds its place in line by a scan of the line),
 * and lapsed leases are swept only once one may have lapsed, not on every call.
 */
import type { ClaimAnswer, ClaimTerms, Presence, PresenceCounts, Renewal } from './types.js';

interface Lease {
  until: number;
  /** The share keys the member claimed with. */
  keys: readonly string[];
}

interface Group {
  held: Map<string, Lease>;
  /** Insertion order is line order (a Map keeps a renewed key's place). */
  line: Map<string, Lease>;
  /** Places held and waiting per share key, kept as leases come and go: no scan per claim. */
  shares: Map<string, number>;
  /** No lease ends before this: the group is swept only once one may have lapsed. */
  earliest: number;
}

export class InMemoryPresence implements Presence {
  private readonly groups = new Map<string, Group>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The group, its lapsed leases dropped; created when `create` (claims), else undefined when it has nobody. */
  private group(name: string, t: number, create: true): Group;
  private group(name: string, t: number, create: false): Group | undefined;
  private group(name: string, t: number, create: boolean): Group | undefined {
    let g = this.groups.get(name);
    if (!g) {
      if (!create) return undefined;
      g = { held: new Map(), line: new Map(), shares: new Map(), earliest: Number.POSITIVE_INFINITY };
      this.groups.set(name, g);
    }
    if (t >= g.earliest) this.sweep(g, t);
    return g;
  }

  /** Drops lapsed leases and finds the next lease end. */
  private sweep(g: Group, t: number): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const m of [g.held, g.line]) {
      for (const [k, l] of m) {
        if (l.until <= t) {
          m.delete(k);
          this.unshare(g, l);
        } else if (l.until < earliest) earliest = l.until;
      }
    }
    g.earliest = earliest;
  }

  private share(g: Group, l: Lease): void {
    for (const k of l.keys) g.shares.set(k, (g.shares.get(k) ?? 0) + 1);
  }

  private unshare(g: Group, l: Lease): void {
    for (const k of l.keys) {
      const n = (g.shares.get(k) ?? 1) - 1;
      if (n > 0) g.shares.set(k, n);
      else g.shares.delete(k);
    }
  }

  private extend(g: Group, l: Lease, until: number): void {
    l.until = until;
    if (until < g.earliest) g.earliest = until;
  }

  async claim(group: string, member: string, terms: ClaimTerms): Promise<ClaimAnswer> {
    const t = this.now();
    const g = this.group(group, t, true);
    const until = t + terms.leaseMs;
    const holding = g.held.get(member);
    if (holding) {
      this.extend(g, holding, until);
      return { outcome: 'held', holders: g.held.size };
    }
    const waiting = g.line.get(member);
    if (!waiting) {
      // A newcomer: refused with no line when the group is full, then checked against its share.
      if (!terms.waitingLine && g.held.size + g.line.size >= terms.capacity) return { outcome: 'full', holders: g.held.size };
      const share = terms.share;
      if (share) {
        const over = share.keys.find((k) => (g.shares.get(k) ?? 0) >= share.limit);
        if (over !== undefined) return { outcome: 'over_share', key: over, holders: g.held.size };
      }
    }
    const ahead = waiting ? [...g.line.keys()].indexOf(member) : g.line.size;
    const lease: Lease = waiting ?? { until, keys: terms.share?.keys ?? [] };
    this.extend(g, lease, until);
    if (!waiting) this.share(g, lease);
    if (g.held.size + ahead < terms.capacity) {
      g.line.delete(member);
      g.held.set(member, lease);
      return { outcome: 'held', holders: g.held.size };
    }
    g.line.set(member, lease);
    return { outcome: 'waiting', position: ahead + 1, holders: g.held.size };
  }

  async renew(group: string, member: string, leaseMs: number): Promise<boolean> {
    return (await this.renewMany(group, [{ member }], leaseMs))[0] === true;
  }

  async renewMany(group: string, members: readonly Renewal[], leaseMs: number): Promise<boolean[]> {
    const t = this.now();
    const g = this.group(group, t, false);
    if (!g) return members.map(() => false);
    return members.map(({ member }) => {
      const lease = g.held.get(member) ?? g.line.get(member);
      if (!lease) return false;
      this.extend(g, lease, t + leaseMs);
      return true;
    });
  }

  async release(group: string, member: string): Promise<PresenceCounts> {
    const g = this.group(group, this.now(), false);
    if (!g) return { holders: 0, waiting: 0 };
    for (const m of [g.held, g.line]) {
      const lease = m.get(member);
      if (lease) {
        m.delete(member);
        this.unshare(g, lease);
      }
    }
    if (!g.held.size && !g.line.size) this.groups.delete(group);
    return { holders: g.held.size, waiting: g.line.size };
  }

  async count(group: string): Promise<PresenceCounts> {
    const g = this.group(group, this.now(), false);
    return { holders: g?.held.size ?? 0, waiting: g?.line.size ?? 0 };
  }

  async close(): Promise<void> {
    this.groups.clear();
  }
}
