/**
 * API key and secret formats. A key is "svc_" + 32 characters from [A-Za-z0-9] drawn with
 * rejection sampling (no modulo bias): about 190 bits, so a single SHA-256 is a sufficient
 * stored hash (no salt or slow hash needed; there is nothing to brute-force), and lookups
 * go by that hash through a unique index, so response time does not depend on how much of a
 * guessed key matches a real one.
 */
import * as crypto from 'node:crypto';
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PREFIX = 'svc_';
const KEY_FORMAT = /^svc_[A-Za-z0-9]{32}$/;

export function randomString(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // 62 * 4 = 248: bytes >= 248 are rejected so every character is equally likely.
      if (b < 248) out += ALPHABET[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateApiKey(): string {
  return KEY_PREFIX + randomString(32);
}

export function generateWebhookSecret(): string {
  return randomString(64);
}

export function isWellFormedKey(key: string): boolean {
  return KEY_FORMAT.test(key);
}

/**
 * The one-shot `crypto.hash` (Node 20.12+) makes no Hash object: about a third of the cost,
 * on every authenticated request. Node 20.11 (the oldest supported) falls back to createHash.
 */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function hashKey(key: string): string {
  if (oneShotHash) return oneShotHash('sha256', key, 'hex');
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
