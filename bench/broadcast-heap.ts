/**
 * What one broadcast viewer holds on the server: Parley's real app (as bench:broadcast runs it,
 * bench/broadcast-parts.ts) with N viewers connected from a child process, a V8 heap snapshot
 * before and after, and the difference by object kind (constructor or closure name): how many
 * more objects and how many bytes (self size) per viewer. RSS and heap per viewer are printed
 * too. This is the tool behind the memory figures of docs/capacity.md.
 *
 *   node --expose-gc --import tsx bench/broadcast-heap.ts [--viewers 1000] [--top 40] [--examples 'KIND']
 *
 * --examples prints a few of the objects of one kind (as the table names it, e.g.
 * 'concatenated string:') that the viewers added, with their names (a string's text).
 */
import { fork } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import { type ClientMsg, type ServerMsg, serveParley } from './broadcast-parts.js';

const argOf = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const VIEWERS = argOf('viewers', 1000);
const TOP = argOf('top', 40);
const EXAMPLES_OF = process.argv.includes('--examples') ? process.argv[process.argv.indexOf('--examples') + 1] : null;

interface Kinds {
  count: Map<string, number>;
  bytes: Map<string, number>;
  /** Node ids and names of the objects of the --examples kind. */
  examples: Map<number, string>;
}

/** An object's kind: V8's node type and, but for strings (whose name is their text), the constructor or function name. */
function kindKey(type: string, name: string | undefined): string {
  const named = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '' : (name ?? '');
  return `${type}:${named.slice(0, 60)}`;
}

/** Objects of a snapshot by kind: V8 node type, and the constructor or function name. */
function kindsOf(file: string): Kinds {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const examples = new Map<number, string>();
  const types = snap.snapshot.meta.node_types[0];
  const count = new Map<string, number>();
  const bytes = new Map<string, number>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt] as number] ?? '?';
    const key = kindKey(type, snap.strings[snap.nodes[i + nameAt] as number]);
    count.set(key, (count.get(key) ?? 0) + 1);
    bytes.set(key, (bytes.get(key) ?? 0) + (snap.nodes[i + sizeAt] as number));
  }
  if (EXAMPLES_OF) describeExamples(snap, examples);
  return { count, bytes, examples };
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/**
 * For each object of the --examples kind: its text (a string's, its parts joined) and what
 * holds it (the kind of the first object with an edge to it, through other strings).
 */
function describeExamples(snap: Snapshot, into: Map<number, string>): void {
  const nf = snap.snapshot.meta.node_fields;
  const ef = snap.snapshot.meta.edge_fields;
  const width = nf.length;
  const ew = ef.length;
  const [typeAt, nameAt, idAt, edgeCountAt] = ['type', 'name', 'id', 'edge_count'].map((f) => nf.indexOf(f)) as [
    number,
    number,
    number,
    number,
  ];
  const [eTypeAt, eNameAt, eToAt] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [number, number, number];
  const types = snap.snapshot.meta.node_types[0];
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const firstEdge: number[] = [];
  const parent = new Map<number, number>(); // node index -> first node index with an edge to it
  for (let i = 0, e = 0; i < snap.nodes.length; i += width) {
    firstEdge.push(e);
    const n = snap.nodes[i + edgeCountAt] as number;
    for (let k = 0; k < n; k++, e += ew) {
      const to = snap.edges[e + eToAt] as number;
      const kind = edgeTypes[snap.edges[e + eTypeAt] as number];
      if (kind !== 'weak' && !parent.has(to)) parent.set(to, i);
    }
  }
  const typeOf = (i: number) => types[snap.nodes[i + typeAt] as number] ?? '?';
  const keyOf = (i: number) => kindKey(typeOf(i), snap.strings[snap.nodes[i + nameAt] as number]);
  const textOf = (i: number, depth: number): string => {
    const t = typeOf(i);
    if (t === 'string') return snap.strings[snap.nodes[i + nameAt] as number] ?? '';
    if (depth > 20 || (t !== 'concatenated string' && t !== 'sliced string')) return `<${t}>`;
    let out = '';
    const e0 = firstEdge[i / width] as number;
    for (let k = 0; k < (snap.nodes[i + edgeCountAt] as number); k++) {
      const e = e0 + k * ew;
      const name = snap.strings[snap.edges[e + eNameAt] as number];
      if (name === 'first' || name === 'second' || name === 'parent') out += textOf(snap.edges[e + eToAt] as number, depth + 1);
    }
    return out;
  };
  for (let i = 0; i < snap.nodes.length; i += width) {
    if (keyOf(i) !== EXAMPLES_OF) continue;
    let holder = parent.get(i);
    while (holder !== undefined && typeOf(holder).endsWith('string')) holder = parent.get(holder);
    into.set(snap.nodes[i + idAt] as number, `${holder === undefined ? '-' : keyOf(holder)} | ${textOf(i, 0).slice(0, 80)}`);
  }
}

async function settle(): Promise<{ rss: number; heap: number }> {
  for (let i = 0; i < 3; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

async function main(): Promise<void> {
  let url = '';
  let handle: ((m: { kind: 'stop' }) => Promise<void>) | null = null;
  handle = await serveParley({ viewers: VIEWERS, processes: 1, redisUrl: '' }, (m: ServerMsg) => {
    if (m.kind === 'ready') url = m.url;
  });
  console.log(`server ready at ${url}; heap snapshot before...`);
  const dir = tmpdir();
  const beforeFile = join(dir, `parley-heap-before-${process.pid}.heapsnapshot`);
  const afterFile = join(dir, `parley-heap-after-${process.pid}.heapsnapshot`);
  const m0 = await settle();
  writeHeapSnapshot(beforeFile);
  const clients = fork(fileURLToPath(new URL('./broadcast.ts', import.meta.url)), ['--clients', url, String(VIEWERS)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const connected = await new Promise<ClientMsg>((r) => clients.once('message', (m: ClientMsg) => r(m)));
  if (connected.kind !== 'connected') throw new Error(JSON.stringify(connected));
  console.log(`${VIEWERS} viewers connected; heap snapshot after...`);
  const m1 = await settle();
  writeHeapSnapshot(afterFile);
  const before = kindsOf(beforeFile);
  const after = kindsOf(afterFile);
  rmSync(beforeFile, { force: true });
  rmSync(afterFile, { force: true });
  console.log(
    `${VIEWERS} viewers connected in ${connected.seconds.toFixed(1)} s; per viewer: RSS ${((m1.rss - m0.rss) / VIEWERS / 1024).toFixed(2)} KB, heap ${((m1.heap - m0.heap) / VIEWERS / 1024).toFixed(2)} KB`,
  );
  const rows = [...after.bytes.keys()]
    .map((k) => ({
      k,
      n: ((after.count.get(k) ?? 0) - (before.count.get(k) ?? 0)) / VIEWERS,
      b: ((after.bytes.get(k) ?? 0) - (before.bytes.get(k) ?? 0)) / VIEWERS,
    }))
    .filter((r) => r.b > 4)
    .sort((a, b) => b.b - a.b)
    .slice(0, TOP);
  let total = 0;
  for (const r of [...after.bytes.keys()]) total += (after.bytes.get(r) ?? 0) - (before.bytes.get(r) ?? 0);
  console.log(
    `heap snapshot difference: ${(total / VIEWERS).toFixed(0)} bytes per viewer; the largest kinds (objects and bytes per viewer):`,
  );
  for (const r of rows) console.log(`  ${r.b.toFixed(0).padStart(6)} B  ${r.n.toFixed(2).padStart(6)}  ${r.k}`);
  if (EXAMPLES_OF) {
    const added = [...after.examples].filter(([id]) => !before.examples.has(id)).map(([, name]) => name);
    const tally = new Map<string, number>();
    for (const name of added) tally.set(name.slice(0, 100), (tally.get(name.slice(0, 100)) ?? 0) + 1);
    console.log(`${added.length} added objects of ${EXAMPLES_OF}; the commonest, as "what holds it | its text":`);
    for (const [name, n] of [...tally].sort((a, b) => b[1] - a[1]).slice(0, 25))
      console.log(`  ${String(n).padStart(6)}  ${JSON.stringify(name)}`);
  }
  clients.send({ kind: 'stop' });
  await handle({ kind: 'stop' });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
