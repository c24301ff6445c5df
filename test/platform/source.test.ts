/** The source per-source limits count: IPv4 as is, IPv4-mapped IPv6 as IPv4, other IPv6 by its /64. */
import { describe, expect, it } from 'vitest';
import { sourceOf } from '../../src/platform/http/source.js';

describe('sourceOf', () => {
  it('keeps IPv4 and unwraps IPv4 written as IPv6', () => {
    expect(sourceOf('203.0.113.7')).toBe('203.0.113.7');
    expect(sourceOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceOf('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('counts every address of one IPv6 /64 as one source, and different /64s apart', () => {
    const a = sourceOf('2001:db8:1:2::1');
    expect(a).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:0db8:0001:0002:ffff:1:2:3')).toBe(a);
    expect(sourceOf('2001:db8:1:2:0:0:0:9%eth0')).toBe(a);
    expect(sourceOf('2001:db8:1:3::1')).not.toBe(a);
    expect(sourceOf('::1')).toBe('0:0:0:0::/64');
  });

  it('leaves anything else (an empty or odd address) as given', () => {
    expect(sourceOf('')).toBe('');
    expect(sourceOf('unknown')).toBe('unknown');
  });
});
