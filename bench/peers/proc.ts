/**
 * CPU time and resident memory of a server's process tree (the server and every descendant,
 * e.g. Parley's engine host), from Linux /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux
const PAGE_BYTES = 4096;

interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, in ticks (the reaped children's time is in cutime/cstime). */
  ticks: number;
  rssBytes: number;
}

function readStat(pid: number): Stat | null {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: split after the last ')'.
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // Fields after the name, 0-based: 1 ppid, 11 utime, 12 stime, 13 cutime, 14 cstime, 21 rss (pages).
    return {
      pid,
      ppid: Number(f[1]),
      ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
      rssBytes: Number(f[21]) * PAGE_BYTES,
    };
  } catch {
    return null; // gone
  }
}

/** The process `root` and its live descendants. */
export function processTree(root: number): Stat[] {
  const all = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readStat(Number(d)))
    .filter((s): s is Stat => s !== null);
  const children = new Map<number, Stat[]>();
  for (const s of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const rootStat = all.find((s) => s.pid === root);
  if (!rootStat) return [];
  const out: Stat[] = [];
  const stack = [rootStat];
  while (stack.length) {
    const s = stack.pop()!;
    out.push(s);
    stack.push(...(children.get(s.pid) ?? []));
  }
  return out;
}

/** CPU seconds used so far by the tree (live processes, and reaped children through cutime/cstime). */
export function treeCpuSeconds(root: number): number {
  return processTree(root).reduce((s, p) => s + p.ticks, 0) / TICKS_PER_SECOND;
}

/** Resident memory of the tree now (sum of RSS: shared pages count once per process). */
export function treeRssBytes(root: number): number {
  return processTree(root).reduce((s, p) => s + p.rssBytes, 0);
}

/** Samples the tree's RSS every `everyMs` until stopped; returns the peak. */
export function rssPeakSampler(root: number, everyMs = 200): { stop(): number } {
  let peak = treeRssBytes(root);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssBytes(root));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, treeRssBytes(root));
    },
  };
}
