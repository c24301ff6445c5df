/**
 * The broadcast's secrets: the 4-character channel token, pass code hashes and viewer
 * access tokens. Pass codes are short (4 to 12 characters), so they are stored as salted
 * scrypt hashes, never as a fast digest; viewer tokens are long random strings, so SHA-256
 * suffices (a leaked table cannot be replayed either way).
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const TOKEN_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const CHANNEL_TOKEN = /^[a-z0-9]{4}$/;
/** N = 2^14, r = 8: about 30 ms per check here; the verify limits bound how often it runs. */
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** 4 characters a-z0-9, uniformly (bytes >= 252 are dropped to avoid modulo bias). */
export function newChannelToken(): string {
  let out = '';
  while (out.length < 4) {
    for (const b of randomBytes(8)) if (b < 252 && out.length < 4) out += TOKEN_ALPHABET[b % 36];
  }
  return out;
}

export async function hashPassCode(code: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(code, salt, KEY_LENGTH, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function passCodeMatches(code: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const got = await scryptAsync(code, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** A viewer_access_token: 32 random bytes, base64url (43 characters). */
export function newViewerToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashViewerToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
