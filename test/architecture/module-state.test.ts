/**
 * No module-level state in the mechanisms (issue 29): engines, platform, store, bus, jobs,
 * storage, stream and presence keep what changes in objects that the composition root builds (an engine
 * registry's shared resources, a server's open streams), so two registries or servers in one
 * process never see each other's. A top-level `let` or a top-level Map/Set/WeakMap fails this
 * test unless it is one of the process-wide facts below, each with its reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const FOLDERS = ['engines', 'platform', 'store', 'bus', 'jobs', 'storage', 'stream', 'presence'];

/** file -> names allowed at module level, and why they are the process's, not an instance's. */
const PROCESS_WIDE: Record<string, { names: string[]; why: string }> = {
  'src/engines/builtin/pocketsphinx/libraries.ts': { names: ['loaded', 'silenced'], why: 'a native library is loaded once per process' },
  'src/engines/builtin/pocketsphinx/native.ts': {
    names: ['api', 'initializing'],
    why: "libpocketsphinx's bindings, and its decoder initialization that must run one at a time in the process",
  },
  'src/engines/builtin/pocketsphinx/lm-extract.ts': { names: ['fillRawNgrams'], why: 'a native binding' },
  'src/engines/builtin/espeak-native.ts': {
    names: ['native', 'chunks', 'events'],
    why: 'espeak-ng keeps one synthesizer per process (its C API is global); its callback fills these during one call',
  },
  'src/engines/builtin/text-language-id.ts': { names: ['toSimplified', 'toTraditional'], why: 'OpenCC tables, immutable once loaded' },
  'src/engines/builtin/pocketsphinx/vocabulary.ts': { names: ['known'], why: "the installed dictionary's words, immutable once read" },
  'src/engines/builtin/pocketsphinx/pronounce.ts': { names: ['cache'], why: 'memo of a pure function' },
  'src/engines/builtin/pocketsphinx/lm-dictionary.ts': { names: ['cached'], why: 'memo of a pure function' },
  'src/engines/text/profanity.ts': { names: ['cache'], why: 'memo of a pure function' },
  'src/engines/offer.ts': { names: ['nameCache'], why: 'memo of a pure function (language display names)' },
  'src/engines/neural/llama-cpp.ts': {
    names: ['loaded'],
    why: 'a GGUF model loaded once per process (gigabytes); known weakness: the first registry sets its threads',
  },
  'src/platform/http/sse.ts': { names: ['shared'], why: "memo of a payload object's JSON (WeakMap: lives as long as the payload)" },
  'src/platform/http/reply.ts': {
    names: ['sharedBodies', 'envelopes'],
    why: "memo of a frozen body's envelope and JSON (WeakMaps: live as long as the body)",
  },
  'src/platform/log-destination.ts': { names: ['pendingAtExit', 'exitHandlerInstalled'], why: "the process's exit hook" },
};

const STATE = /^(?:export )?(?:let|var) (\w+)|^(?:export )?const ([a-z]\w*)(?::[^=]+)? = new (?:Map|Set|WeakMap|WeakSet)\b/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(path) : e.name.endsWith('.ts') ? [path] : [];
  });
}

describe('module-level state', () => {
  it('the mechanisms keep none beyond the process-wide facts listed', () => {
    const found: string[] = [];
    for (const folder of FOLDERS) {
      for (const path of sourceFiles(join(root, 'src', folder))) {
        const file = relative(root, path);
        for (const m of readFileSync(path, 'utf8').matchAll(STATE)) {
          const name = (m[1] ?? m[2])!;
          if (!PROCESS_WIDE[file]?.names.includes(name)) found.push(`${file}: ${name}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('the pattern finds state where there is some', () => {
    const sample =
      "let counter = 0;\nconst cache = new Map<string, number>();\nconst LIMITS = new Set(['a']);\nfunction f() {\n  let local = 1;\n}\n";
    expect([...sample.matchAll(STATE)].map((m) => m[1] ?? m[2])).toEqual(['counter', 'cache']);
  });
});
