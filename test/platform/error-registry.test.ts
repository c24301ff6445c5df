import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError, renderErrorBody, toErrorObject } from '../../src/platform/errors/app-error.js';
import { renderErrorDocs } from '../../src/platform/errors/docs.js';
import { ERRORS, isErrorCode, statusOf } from '../../src/platform/errors/registry.js';

const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('error registry', () => {
  it('docs/errors.md is generated from the registry and up to date', () => {
    expect(readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8')).toBe(renderErrorDocs());
  });

  it('every code raised in the source is in the registry and in the docs', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
    const used = new Set<string>();
    const patterns = [
      /\b(?:AppError|EngineError)\(\s*'([A-Za-z_]+)'/g,
      /\berror_code:\s*'([A-Za-z_]+)'/g,
      /\bcode:\s*'([a-z]+_[a-z_]+)'\s+as\s+ErrorCode/g,
    ];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const re of patterns) for (const m of text.matchAll(re)) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(5);
    const missing = [...used].filter((c) => !isErrorCode(c) || !docs.includes(`\`${c}\``));
    expect(missing).toEqual([]);
  });

  it('holds the spec statuses, including per-transport exceptions', () => {
    expect(statusOf('validation_failed')).toBe(422);
    expect(statusOf('validation_failed', 'voices')).toBe(400);
    expect(statusOf('summary_mode_field_mismatch')).toBe(400);
    expect(statusOf('summary_mode_field_mismatch', 'sse')).toBe(422);
    expect(statusOf('ticket_validation_failed')).toBe(401);
    expect(statusOf('auth_user_disabled')).toBe(403);
    expect(statusOf('auth_insufficient_credit')).toBe(402);
    expect(statusOf('stt_silence_timeout')).toBeNull();
    expect(ERRORS.auth_quota_exceeded.severity).toBe('fatal');
    expect(ERRORS.session_already_paused.severity).toBe('warning');
  });

  it('renders the standard object and the two exceptional shapes', () => {
    const err = new AppError('template_not_found');
    const obj = toErrorObject(new AppError('translation_failed', { sid: 3, details: { translation_language: 'es' } }), 'r1', new Date(0));
    expect(obj).toEqual({
      error_code: 'translation_failed',
      severity: 'error',
      message: expect.any(String),
      context: 'translation',
      sid: 3,
      request_id: 'r1',
      timestamp: '1970-01-01T00:00:00.000Z',
      details: { translation_language: 'es' },
    });
    expect(renderErrorBody(err, 'summary-template')).toEqual({ errorCode: 'template_not_found', message: expect.any(String) });
    expect(renderErrorBody(new AppError('recording_ended'), 'subtitle-token')).toEqual({ error: 'recording_ended' });
    // 401/403 on summary-template endpoints keep the standard shape.
    expect(renderErrorBody(new AppError('auth_invalid_api_key'), 'summary-template', 'r2')).toMatchObject({
      data: { error_code: 'auth_invalid_api_key', request_id: 'r2' },
    });
  });
});
