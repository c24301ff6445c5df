/**
 * The address check of every outbound URL (webhooks and caption sinks share it), table-driven
 * over every way of writing an address that reaches a non-public host (issue 26, finding 6):
 * IPv4 in decimal, octal, hex and short forms, and IPv6 forms that embed an IPv4 address or
 * translate to one (mapped, compatible, SIIT, NAT64, 6to4, Teredo), plus the IPv6 special ranges.
 */
import { describe, expect, it } from 'vitest';
import { forbiddenHostReason, isForbiddenAddress, parseIPv4 } from '../../src/webhooks/ssrf.js';

const FORBIDDEN: [string, string][] = [
  // IPv4 special ranges
  ['127.0.0.1', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['0.0.0.0', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  // IPv4 written the way inet_aton reads it
  ['2130706433', 'decimal 127.0.0.1'],
  ['0x7f000001', 'hex 127.0.0.1'],
  ['0x7f.1', 'hex short 127.0.0.1'],
  ['127.1', 'short 127.0.0.1'],
  ['0177.0.0.1', 'octal 127.0.0.1'],
  ['017700000001', 'octal whole 127.0.0.1'],
  ['10.0x1.1', 'mixed 10.1.0.1'],
  ['3232235777', 'decimal 192.168.1.1'],
  // IPv6 special ranges
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'unique local'],
  ['fd12:3456::1', 'unique local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['fec0::1', 'site-local'],
  ['feff::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['100::1', 'discard-only'],
  // IPv6 forms that carry an IPv4 address
  ['::ffff:127.0.0.1', 'IPv4-mapped'],
  ['::ffff:7f00:1', 'IPv4-mapped, hex'],
  ['0:0:0:0:0:ffff:a00:1', 'IPv4-mapped 10.0.0.1, long'],
  ['::ffff:169.254.1.1', 'IPv4-mapped link-local'],
  ['::127.0.0.1', 'IPv4-compatible'],
  ['::7f00:1', 'IPv4-compatible, hex'],
  ['::ffff:0:127.0.0.1', 'SIIT'],
  ['::ffff:0:7f00:1', 'SIIT, hex'],
  ['64:ff9b::127.0.0.1', 'NAT64 well-known prefix'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 to 169.254.169.254'],
  ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix'],
  ['64:ff9b:1::808:808', 'NAT64 local-use prefix (any address: a local translator)'],
  ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
  ['2002:c0a8:101::', '6to4 of 192.168.1.1'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fefe', 'Teredo, client 10.0.1.1'],
  ['[::127.0.0.1]', 'bracketed, as in a URL'],
  // not an address at all
  ['example.com', 'a name (names are resolved, then judged)'],
  ['', 'empty'],
];

const PUBLIC: [string, string][] = [
  ['93.184.216.34', 'public IPv4'],
  ['8.8.8.8', 'public IPv4'],
  ['134744072', 'decimal 8.8.8.8'],
  ['2606:4700::1111', 'public IPv6'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public'],
  ['64:ff9b::808:808', 'NAT64 well-known prefix to a public address (DNS64 networks)'],
  ['2002:808:808::1', '6to4 of a public address'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo, public client 8.8.8.8'],
];

describe('outbound address check (SSRF guard)', () => {
  it.each(FORBIDDEN)('refuses %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(PUBLIC)('allows %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0177.0.0.01', '127.0.0.1'],
    ['10.0x10203', '10.1.2.3'],
    ['1.2.3.4', '1.2.3.4'],
  ])('reads the IPv4 form %s as %s', (text, dotted) => {
    expect(parseIPv4(text)).toBe(dotted);
  });

  it.each(['256.1.1.1', '1.2.3.4.5', '08.1.1.1', '1..1', '4294967296', 'a.b.c.d'])('%s is no IPv4 address', (text) => {
    expect(parseIPv4(text)).toBe(null);
  });

  it('judges the host of a URL as the URL parser leaves it (what is saved)', () => {
    for (const url of [
      'http://[::127.0.0.1]:8080/',
      'http://[::ffff:0:127.0.0.1]/',
      'http://[64:ff9b:1::7f00:1]/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://127.1/',
      'http://LOCALHOST./',
      'http://a.localhost/',
      'http://[fec0::1]/',
    ]) {
      expect(forbiddenHostReason(new URL(url).hostname), url).not.toBe(null);
    }
    for (const url of ['https://hooks.example.com/x', 'http://8.8.8.8/', 'http://[2606:4700::1111]/']) {
      expect(forbiddenHostReason(new URL(url).hostname), url).toBe(null);
    }
  });
});
