/**
 * Shared plumbing of the admin commands: open the services over the configured database,
 * run, print one JSON object (--json) or a line of text, and map errors to exit code 1.
 */
import { AppError } from '../../platform/errors/app-error.js';

export interface AdminIo {
  out(text: string): void;
  err(text: string): void;
}

export const STDIO: AdminIo = { out: (t) => process.stdout.write(`${t}\n`), err: (t) => process.stderr.write(`${t}\n`) };

export async function runCommand<C extends { close(): Promise<void> }>(
  open: () => Promise<C>,
  io: AdminIo,
  json: boolean,
  fn: (ctx: C) => Promise<{ result: Record<string, unknown>; text: string }>,
): Promise<void> {
  let ctx: C | undefined;
  try {
    ctx = await open();
    const { result, text } = await fn(ctx);
    io.out(json ? JSON.stringify(result) : text);
  } catch (err) {
    const e = err instanceof AppError ? err : null;
    if (json)
      io.out(
        JSON.stringify({ error: { code: e?.code ?? 'internal_error', message: e?.message ?? String(err), details: e?.details ?? null } }),
      );
    else io.err(`error: ${e ? `${e.message}${e.details ? ` ${JSON.stringify(e.details)}` : ''}` : String(err)}`);
    process.exitCode = 1;
  } finally {
    await ctx?.close();
  }
}

/** Parses a number option; throws validation_failed naming the flag. */
export function numberOption(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n))
    throw new AppError('validation_failed', { message: `${flag} must be a number, got "${raw}".`, details: { field: flag } });
  return n;
}

/** "none" or "" clears a nullable setting. */
export function nullable(raw: string | undefined): string | null | undefined {
  if (raw === undefined) return undefined;
  return raw === '' || raw === 'none' ? null : raw;
}

/** An ISO 8601 option, normalized; undefined or absent gives null. */
export function isoOrNull(raw: string | undefined, flag: string): string | null {
  if (raw === undefined) return null;
  const t = Date.parse(raw);
  if (Number.isNaN(t))
    throw new AppError('validation_failed', { message: `${flag} must be an ISO 8601 date-time, got "${raw}".`, details: { field: flag } });
  return new Date(t).toISOString();
}
