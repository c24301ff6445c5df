/**
 * Builds the console (web/console/*.tsx, Preact) into one ES module, web/build/console.js,
 * which src/web/routes.ts serves at /web/console.js. Run by scripts/setup.sh (so `npm run
 * serve` and `npm test` build it) and by the browser tests before they start. The output is
 * not committed (.gitignore): it is always built from the sources in the same checkout.
 */
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
export const CONSOLE_BUNDLE = join(ROOT, 'web', 'build', 'console.js');

export async function buildConsole(): Promise<void> {
  await build({
    entryPoints: [join(ROOT, 'web', 'console', 'main.tsx')],
    outfile: CONSOLE_BUNDLE,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildConsole();
  console.log(`setup: console built (${CONSOLE_BUNDLE.slice(ROOT.length + 1)})`);
}
