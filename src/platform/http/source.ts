/**
 * The "source" that per-source limits count (viewer lookups, wrong passwords, seats, subtitle
 * exchanges): the client address (request.ip: the socket's, or X-Forwarded-For only with
 * PARLEY_TRUST_PROXY). An IPv6 client counts by its /64, since one host or home usually gets a
 * whole /64 and could otherwise appear as billions of sources; an IPv4 address written as IPv6
 * (::ffff:a.b.c.d) counts as that IPv4 address.
 */
import { isIPv6 } from 'node:net';

/** Expands an IPv6 address to its eight hextets (null when it is not one). */
function hextets(ip: string): string[] | null {
  if (!isIPv6(ip)) return null;
  let text = ip;
  // A trailing dotted quad is two hextets.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((h) => Number.parseInt(h, 16).toString(16));
}

export function sourceOf(ip: string): string {
  const address = ip.split('%')[0] ?? ip; // a zone id names an interface, not a client
  const h = hextets(address);
  if (!h) return address;
  // ::ffff:a.b.c.d is an IPv4 client.
  if (h.slice(0, 5).every((x) => x === '0') && h[5] === 'ffff') {
    const n = (Number.parseInt(h[6]!, 16) << 16) | Number.parseInt(h[7]!, 16);
    return [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
  }
  return `${h.slice(0, 4).join(':')}::/64`;
}
