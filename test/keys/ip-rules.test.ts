/** Source IP rules: CIDR parsing and matching for IPv4, IPv6 and IPv4-mapped IPv6 client addresses. */
import { describe, expect, it } from 'vitest';
import { compileIpRules, IpRuleError, parseIpRule } from '../../src/keys/ip-rules.js';

describe('IP rules', () => {
  it('parses CIDR blocks and single addresses of both families', () => {
    expect(parseIpRule('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseIpRule(' 192.0.2.7 ')).toEqual({ address: '192.0.2.7', prefix: 32, family: 'ipv4' });
    expect(parseIpRule('2001:db8::/32')).toEqual({ address: '2001:db8::', prefix: 32, family: 'ipv6' });
    expect(parseIpRule('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    expect(parseIpRule('0.0.0.0/0').prefix).toBe(0);
  });

  it('refuses what is not an address or block', () => {
    for (const bad of [
      '',
      'example.com',
      '10.0.0',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/8/1',
      '[::1]',
      '1.2.3.4/x',
    ]) {
      expect(() => parseIpRule(bad), bad).toThrow(IpRuleError);
    }
  });

  it('matches IPv4 blocks, also for IPv4-mapped IPv6 peers of a dual-stack server', () => {
    const allowed = compileIpRules(['203.0.113.0/24', '198.51.100.9']);
    expect(allowed('203.0.113.1')).toBe(true);
    expect(allowed('203.0.113.255')).toBe(true);
    expect(allowed('::ffff:203.0.113.77')).toBe(true);
    expect(allowed('::FFFF:198.51.100.9')).toBe(true);
    expect(allowed('198.51.100.10')).toBe(false);
    expect(allowed('::ffff:203.0.114.1')).toBe(false);
    expect(allowed('203.0.114.1')).toBe(false);
  });

  it('matches IPv6 blocks and keeps the families apart', () => {
    const allowed = compileIpRules(['2001:db8:abcd::/48']);
    expect(allowed('2001:db8:abcd:1::5')).toBe(true);
    expect(allowed('2001:db8:abce::1')).toBe(false);
    expect(allowed('10.0.0.1')).toBe(false);
    const v4only = compileIpRules(['0.0.0.0/0']);
    expect(v4only('8.8.8.8')).toBe(true);
    expect(v4only('2001:db8::1')).toBe(false);
  });

  it('an unparseable client address never matches', () => {
    const allowed = compileIpRules(['0.0.0.0/0', '::/0']);
    expect(allowed('')).toBe(false);
    expect(allowed('unknown')).toBe(false);
  });
});
