/**
 * Engine latency: each engine handed out by the registry is a Proxy that times its
 * operations (the registry builds them once: EngineRegistry.observed). Everything else an
 * engine has (capabilities, voices, streams) passes through untouched, bound to the engine.
 * Live (streaming) recognition is not timed here: its results arrive over a stream, not as
 * one call.
 */
import type { AnyEngine } from '../engines/types.js';
import type { EngineObserver } from './metrics.js';

/** Operations timed, by method name: recognition, translation, TTS, summaries, language models. */
const TIMED = new Set<PropertyKey>(['transcribe', 'translate', 'synthesize', 'summarize', 'chat']);

export function observedEngine(engine: AnyEngine, observe: EngineObserver): AnyEngine {
  const functions = new Map<PropertyKey, unknown>();
  return new Proxy(engine, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      let fn = functions.get(prop);
      if (!fn) {
        const method = value as (...args: unknown[]) => unknown;
        fn = TIMED.has(prop) ? timed(target, String(prop), method, observe) : method.bind(target);
        functions.set(prop, fn);
      }
      return fn;
    },
  });
}

function timed(engine: AnyEngine, operation: string, method: (...args: unknown[]) => unknown, observe: EngineObserver) {
  return async (...args: unknown[]) => {
    const start = performance.now();
    const report = (ok: boolean) =>
      observe({ kind: engine.kind, engine: engine.id, operation, seconds: (performance.now() - start) / 1000, ok });
    try {
      const result = await method.apply(engine, args);
      report(true);
      return result;
    } catch (err) {
      report(false);
      throw err;
    }
  };
}
