/**
 * Outbound address policy (SSRF guard): webhook targets must be public addresses. The host
 * is resolved once, every resolved address is checked, and the connection goes to a checked
 * address (the request's `lookup` returns it), so a DNS answer that changes between the
 * check and the connect (rebinding) cannot reach an internal service.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blockedV4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const)
  blockedV4.addSubnet(net, prefix, 'ipv4');

const blockedV6 = new BlockList();
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): a translator into the local IPv4 network
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo's 2001::/32 is decoded below first)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
] as const)
  blockedV6.addSubnet(net, prefix, 'ipv6');

/**
 * An IPv4 address in any form `inet_aton` (and so a resolver) accepts: 1 to 4 parts, each
 * decimal, octal (leading 0) or hex (0x), the last part filling the remaining bytes
 * (2130706433, 0x7f.1, 127.1, 0177.0.0.1). Returns the dotted quad, or null.
 */
export function parseIPv4(text: string): string | null {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const values: number[] = [];
  for (const p of parts) {
    const m = /^(?:0x([0-9a-f]*)|(0[0-7]*)|([1-9][0-9]*))$/i.exec(p);
    if (!m) return null;
    const v = m[1] !== undefined ? Number.parseInt(m[1] || '0', 16) : m[2] !== undefined ? Number.parseInt(m[2], 8) : Number(m[3]);
    if (!Number.isSafeInteger(v)) return null;
    values.push(v);
  }
  const last = values.pop() as number;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  let n = last;
  values.forEach((v, i) => {
    n += v * 256 ** (3 - i);
  });
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The 16 bytes of an IPv6 address (a zone id is dropped), or null when it is not one. */
function ipv6Bytes(text: string): Uint8Array | null {
  const ip = text.replace(/%.*$/, '');
  if (isIP(ip) !== 6) return null;
  const [head = '', tail] = ip.split('::') as [string, string | undefined];
  const groups = (s: string): number[] => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (g.includes('.')) {
        const q = g.split('.').map(Number);
        out.push(((q[0] ?? 0) << 8) | (q[1] ?? 0), ((q[2] ?? 0) << 8) | (q[3] ?? 0));
      } else out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 255;
  });
  return bytes;
}

const quad = (b: Uint8Array, at: number, xor = 0) => [0, 1, 2, 3].map((i) => (b[at + i] ?? 0) ^ xor).join('.');
const zero = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

/**
 * The IPv4 addresses an IPv6 address carries (and reaches through a translator or tunnel):
 * IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64
 * 64:ff9b::a.b.c.d, 6to4 2002:AABB:CCDD::, and Teredo 2001:0:SERVER::CLIENT (client XOR 0xff).
 */
export function embeddedIPv4(b: Uint8Array): string[] {
  const w = (i: number) => ((b[i * 2] ?? 0) << 8) | (b[i * 2 + 1] ?? 0);
  if (zero(b, 0, 10) && w(5) === 0xffff) return [quad(b, 12)]; // mapped
  if (zero(b, 0, 12)) return [quad(b, 12)]; // compatible (:: and ::1 too: 0.0.0.0/8, refused)
  if (zero(b, 0, 8) && w(4) === 0xffff && w(5) === 0) return [quad(b, 12)]; // SIIT
  if (w(0) === 0x64 && w(1) === 0xff9b && zero(b, 4, 12)) return [quad(b, 12)]; // NAT64 well-known /96
  if (w(0) === 0x2002) return [quad(b, 2)]; // 6to4
  if (w(0) === 0x2001 && w(1) === 0) return [quad(b, 12, 0xff), quad(b, 4)]; // Teredo: client, server
  return [];
}

/**
 * True for every address a webhook must not reach: private, loopback, link-local, site-local,
 * unique-local, multicast, unspecified, documentation and other special ranges, in any form
 * (IPv4 in decimal, octal, hex or short form; IPv6 forms that embed or translate to an IPv4
 * address are judged by that address). Anything that is not an address is refused too.
 */
export function isForbiddenAddress(address: string): boolean {
  const host = address.replace(/^\[|\]$/g, '');
  const v4 = parseIPv4(host);
  if (v4) return blockedV4.check(v4, 'ipv4');
  const bytes = ipv6Bytes(host);
  if (!bytes) return true;
  const inner = embeddedIPv4(bytes);
  if (inner.some((ip) => blockedV4.check(ip, 'ipv4'))) return true;
  // Teredo's prefix is inside 2001::/23: judged by the addresses it carries, not the range.
  if (inner.length === 2) return false;
  const canonical = [...Array(8).keys()].map((i) => (((bytes[i * 2] ?? 0) << 8) | (bytes[i * 2 + 1] ?? 0)).toString(16)).join(':');
  return blockedV6.check(canonical, 'ipv6');
}

/**
 * The one check of an outbound URL's host before anything is saved (webhook URLs, caption
 * sinks): the reason it is refused, or null. Address literals are judged here; `localhost`
 * names are refused; other names are resolved and their answers judged when connecting
 * (`resolveTarget`), so a DNS answer that changes later cannot pass.
 */
export function forbiddenHostReason(hostname: string): string | null {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a local name`;
  const literal = parseIPv4(host) !== null || isIP(host.replace(/%.*$/, '')) === 6;
  if (literal && isForbiddenAddress(host)) return `${host} is a non-public address`;
  return null;
}

export class ForbiddenTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForbiddenTargetError';
  }
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/** Resolves the URL's host and returns an address to connect to, refusing non-public ones. */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<ResolvedTarget> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate) {
    const reason = forbiddenHostReason(host);
    if (reason) throw new ForbiddenTargetError(`${reason}; refused (it resolves to a non-public address).`);
  }
  const literal = isIP(host);
  const addresses = literal
    ? [{ address: host, family: literal }]
    : await dnsLookup(host, { all: true, verbatim: true }).catch((err: NodeJS.ErrnoException) => {
        throw new ForbiddenTargetError(`Cannot resolve ${host}: ${err.code ?? err.message}`);
      });
  if (addresses.length === 0) throw new ForbiddenTargetError(`No address for ${host}.`);
  if (!allowPrivate) {
    // Every answer is judged, and the connection goes to a judged one (the request's lookup).
    const bad = addresses.find((a) => isForbiddenAddress(a.address));
    if (bad) throw new ForbiddenTargetError(`${host} resolves to a non-public address (${bad.address}); refused.`);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
