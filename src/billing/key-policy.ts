/**
 * What billing needs to know about a key: whether it may draw on account credit, its monthly
 * spend limit and its concurrency cap. The keys feature owns these settings and implements
 * this port; until it is wired in, `OPEN_KEY_POLICY` applies (account pool allowed, no
 * spend limit, no concurrency cap).
 */
export interface KeyPolicy {
  allowAccountPool: boolean;
  /** Points per calendar month (UTC), or null for no limit. */
  monthlySpendLimit: number | null;
  maxConcurrentSessions: number | null;
}

export interface KeyPolicySource {
  /** Null when the key is unknown (then the open policy applies). */
  keyPolicy(keyId: string): Promise<KeyPolicy | null>;
}

export const OPEN_KEY_POLICY: KeyPolicy = { allowAccountPool: true, monthlySpendLimit: null, maxConcurrentSessions: null };

export const openKeyPolicySource: KeyPolicySource = { keyPolicy: async () => null };
