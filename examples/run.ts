/**
 * How the example scripts start and fail: the settings from the environment, a usage line when
 * something is missing, and one line naming the cause of a failure (the missing file, the
 * server that does not answer, the error code the server gave) instead of a stack trace.
 */
import { ParleyError } from '../src/client/node.js';

export interface ExampleEnv {
  baseUrl: string;
  realtimeUrl: string | undefined;
  apiKey: string;
  file: string;
}

/** The example's settings, or exit 2 with its usage line. */
export function exampleEnv(script: string, fileHint: string): ExampleEnv {
  const file = process.argv[2];
  const apiKey = process.env.PARLEY_API_KEY;
  if (!file || !apiKey) {
    console.error(`usage: PARLEY_API_KEY=svc_... [PARLEY_BASE_URL=http://localhost:8080] npx tsx examples/${script} ${fileHint}`);
    process.exit(2);
  }
  return { baseUrl: process.env.PARLEY_BASE_URL ?? 'http://localhost:8080', realtimeUrl: process.env.PARLEY_REALTIME_URL, apiKey, file };
}

/** One line for a failed example run. */
export function explain(err: unknown, baseUrl: string): string {
  if (err instanceof ParleyError) {
    if (err.code === 'network_error') return `no Parley server answers at ${baseUrl} (start it with npm run serve, or set PARLEY_BASE_URL)`;
    return `${err.code}${err.status ? ` (HTTP ${err.status})` : ''}: ${err.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Runs an example's main; on failure prints `error: <cause>` and exits 1. */
export function runExample(main: () => Promise<unknown>, baseUrl: string): void {
  main().catch((err: unknown) => {
    console.error(`error: ${explain(err, baseUrl)}`);
    process.exit(1);
  });
}
