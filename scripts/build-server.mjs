/**
 * Builds the server (src/main.ts and everything it imports from src/) into one ES module,
 * dist/main.mjs, which `npm start` and the tests' server processes run with plain node; the
 * operator commands (src/cli/admin.ts, engines.ts, models.ts) likewise into dist/<name>.mjs.
 *
 * Why: `node --import tsx src/main.ts` compiles some 400 TypeScript modules at every start in
 * tsx's loader thread (about 5 s of CPU on these 2-core machines under load, most of it the
 * loader); the bundle starts in about half of that, and the crash, restart and scale-out suites
 * start dozens of servers. Packages stay external (node_modules as installed). The output is not
 * committed (.gitignore): it is rebuilt from the sources of the same checkout at every
 * `npm start` and every test run (about a second). `node --import tsx src/main.ts` still works.
 *
 * Paths: modules find their files (web/, vendor/, package.json) relative to their own source
 * file, so each module's `import.meta.url` / `import.meta.dirname` is replaced by its source
 * file's, expressed relative to the bundle (the checkout can move; the bundle moves with it).
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist');
/** Each bundle (dist/<name>.mjs) and the source it starts from. */
const ENTRIES = {
  main: 'src/main.ts',
  admin: 'src/cli/admin.ts',
  engines: 'src/cli/engines.ts',
  models: 'src/cli/models.ts',
};
const ENTRY_FILES = new Set(Object.values(ENTRIES).map((f) => join(ROOT, f)));

/** The source's URL and folder, computed at run time from the bundle's own location. */
function sourceLocation(file) {
  const fromBundle = relative(OUT, file).split('\\').join('/');
  const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
  const dir = `decodeURIComponent(new URL(${JSON.stringify(`${dirname(fromBundle)}/`)}, import.meta.url).pathname).replace(/\\/$/, '')`;
  return { url: `(${url})`, dirname: `(${dir})` };
}

const sourceImportMeta = {
  name: 'source-import-meta',
  setup(b) {
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      // An entry keeps its own import.meta: its "am I the program?" check
      // (import.meta.url === file://argv[1]) must see the bundle it became.
      if (!text.includes('import.meta') || ENTRY_FILES.has(args.path)) return { contents: text, loader: 'ts' };
      const where = sourceLocation(args.path);
      const contents = text.replace(/import\.meta\.(url|dirname)\b/g, (_m, key) => where[key]);
      return { contents, loader: 'ts' };
    });
  },
};

export async function buildServer() {
  const result = await build({
    entryPoints: Object.entries(ENTRIES).map(([out, source]) => ({ in: join(ROOT, source), out })),
    outdir: OUT,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // A dynamic import() stays dynamic (a chunk of its own, dist/chunk-*.mjs): without splitting
    // esbuild inlines it, and the packages it imports (BullMQ, the AWS SDK: about 1,000 files)
    // became static imports that every start loaded, Redis and S3 configured or not.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    // Stack traces name the TypeScript sources when node runs with --enable-source-maps.
    sourcemap: 'linked',
    // Class and function names stay as written (logs and error names use them).
    keepNames: true,
    plugins: [sourceImportMeta],
    logLevel: 'warning',
    metafile: true,
    absWorkingDir: ROOT, // the metafile's paths are relative to it
  });
  // Chunks of earlier builds (their names hash their contents) would pile up in dist/.
  const written = new Set(Object.keys(result.metafile.outputs).map((f) => join(ROOT, f)));
  for (const name of await readdir(OUT)) {
    const file = join(OUT, name);
    if (name.startsWith('chunk-') && !written.has(file)) await rm(file, { force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  await buildServer();
  if (!process.argv.includes('--quiet'))
    console.log(`build: server and commands bundled (dist/{${Object.keys(ENTRIES).join(',')}}.mjs, ${Date.now() - started} ms)`);
}
