/**
 * Source IP rules of a key: CIDR blocks (IPv4 and IPv6) or single addresses. Matching uses
 * node's BlockList; IPv4-mapped IPv6 client addresses ("::ffff:10.0.0.1") are matched as
 * IPv4, as a dual-stack server reports them.
 */
import { BlockList, isIP } from 'node:net';

export class IpRuleError extends Error {}

export interface IpRule {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses "10.0.0.0/8", "2001:db8::/32" or a single address; throws IpRuleError. */
export function parseIpRule(raw: string): IpRule {
  const [address = '', prefixText, extra] = raw.trim().split('/');
  const v = isIP(address);
  if (!v || extra !== undefined) throw new IpRuleError(`not an IP address or CIDR block: "${raw}"`);
  const max = v === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) throw new IpRuleError(`bad prefix length in "${raw}" (0-${max})`);
  return { address, prefix, family: v === 4 ? 'ipv4' : 'ipv6' };
}

export function compileIpRules(rules: readonly string[]): (ip: string) => boolean {
  const list = new BlockList();
  for (const r of rules.map(parseIpRule)) list.addSubnet(r.address, r.prefix, r.family);
  return (ip: string) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
    const addr = mapped ?? ip;
    const family = isIP(addr);
    if (!family) return false;
    return list.check(addr, family === 4 ? 'ipv4' : 'ipv6');
  };
}
