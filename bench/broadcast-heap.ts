/**
 * What one broadcast viewer holds on the server: Parley's real app (as bench:broadcast runs it,
 * bench/broadcast-parts.ts) with N viewers connected from a child process, a V8 heap snapshot
 * before and after, and the difference by object kind (constructor or closure name): how many
 * more objects and how many bytes (self size) per viewer. RSS and heap per viewer are printed
 * too. This is the tool behind the memory figures of docs/capacity.md.
 *
 *   node --expose-gc --import tsx bench/broadcast-heap.ts [--viewers 1000] [--top 40]
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

interface Kinds {
  count: Map<string, number>;
  bytes: Map<string, number>;
}

/** Objects of a snapshot by kind: V8 node type, and the constructor or function name. */
function kindsOf(file: string): Kinds {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const count = new Map<string, number>();
  const bytes = new Map<string, number>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt] as number] ?? '?';
    const name =
      type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '' : snap.strings[snap.nodes[i + nameAt] as number];
    const key = `${type}:${(name ?? '').slice(0, 60)}`;
    count.set(key, (count.get(key) ?? 0) + 1);
    bytes.set(key, (bytes.get(key) ?? 0) + (snap.nodes[i + sizeAt] as number));
  }
  return { count, bytes };
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
  clients.send({ kind: 'stop' });
  await handle({ kind: 'stop' });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
