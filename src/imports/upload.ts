/**
 * Reads the multipart upload of POST /imports: the file is streamed to a temporary file
 * (never held in memory; its first bytes are kept to decide the format from content), the
 * text fields are collected. Any failure removes the temporary file before the error is
 * answered, so a refused or broken upload leaves nothing behind.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors/app-error.js';

/** Bytes kept from the start of the file for format detection (an ID3 tag can precede the first frame). */
const HEAD_BYTES = 4096;
/** Largest text field: the glossary's JSON can be long (4000 fuzzy rules of 200-character variants). */
const MAX_FIELD_BYTES = 8 * 1024 * 1024;

export interface Upload {
  path: string;
  filename: string;
  size: number;
  head: Buffer;
  fields: Map<string, string>;
  /** Removes the temporary file (idempotent). */
  discard(): void;
}

const invalid = (field: string, message: string) => new AppError('validation_failed', { message, details: { field } });

export async function readUpload(request: FastifyRequest, o: { tempDir: string; maxBytes: number }): Promise<Upload> {
  if (!request.isMultipart()) {
    throw new AppError('unsupported_media_type', {
      message: 'POST /imports takes multipart/form-data.',
      details: { expected: 'multipart/form-data' },
    });
  }
  const declared = Number(request.headers['content-length']);
  // A declared length far beyond the limit is refused before a byte of it is stored.
  if (Number.isFinite(declared) && declared > o.maxBytes + MAX_FIELD_BYTES) throw tooLarge(o.maxBytes);
  mkdirSync(o.tempDir, { recursive: true });
  const path = join(o.tempDir, `${randomUUID()}.upload`);
  const fields = new Map<string, string>();
  let file: { filename: string; size: number; head: Buffer } | null = null;
  const discard = () => rmSync(path, { force: true });
  try {
    const parts = request.parts({
      limits: { fileSize: o.maxBytes, files: 1, fields: 40, parts: 41, fieldSize: MAX_FIELD_BYTES, fieldNameSize: 100 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw invalid(part.fieldname, `Only the "file" field may carry a file; got "${part.fieldname}".`);
        }
        const head: Buffer[] = [];
        let headLength = 0;
        let size = 0;
        const tap = new Transform({
          transform(chunk: Buffer, _enc, done) {
            size += chunk.length;
            if (headLength < HEAD_BYTES) {
              head.push(chunk.subarray(0, HEAD_BYTES - headLength));
              headLength += Math.min(chunk.length, HEAD_BYTES - headLength);
            }
            done(null, chunk);
          },
        });
        // Opened synchronously, so a failing upload cannot create the file after it was removed.
        await pipeline(part.file, tap, createWriteStream('', { fd: openSync(path, 'w') }));
        if (part.file.truncated) throw tooLarge(o.maxBytes);
        file = { filename: cleanFilename(part.filename), size, head: Buffer.concat(head) };
      } else {
        if (part.valueTruncated) throw invalid(part.fieldname, `${part.fieldname} is longer than ${MAX_FIELD_BYTES} bytes.`);
        if (fields.has(part.fieldname)) throw invalid(part.fieldname, `${part.fieldname} appears more than once.`);
        if (typeof part.value !== 'string') throw invalid(part.fieldname, `${part.fieldname} must be text.`);
        fields.set(part.fieldname, part.value);
      }
    }
  } catch (err) {
    discard();
    throw translate(err, o.maxBytes);
  }
  if (!file) {
    discard();
    throw invalid('file', 'The form has no "file" part.');
  }
  if (file.size === 0) {
    discard();
    throw new AppError('import_invalid_format', { message: 'The file is empty.', details: { size: 0 } });
  }
  return { path, ...file, fields, discard };
}

/** The name as the user sees it again: no directories, no control characters, at most 255 characters. */
export function cleanFilename(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/\p{Cc}/gu, '').trim();
  return [...(clean || 'upload')].slice(0, 255).join('');
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('import_file_too_large', { message: `The file is larger than ${maxBytes} bytes.`, details: { max_bytes: maxBytes } });
}

/** @fastify/multipart and busboy errors as the spec's codes. */
function translate(err: unknown, maxBytes: number): unknown {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge(maxBytes);
    case 'FST_FILES_LIMIT':
      return invalid('file', 'Send exactly one file.');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return invalid('form', 'The form has too many fields.');
    case 'FST_PROTO_VIOLATION':
      return invalid('form', 'A field name is not allowed.');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError('unsupported_media_type', { message: 'POST /imports takes multipart/form-data.' });
    default:
      // Truncated or malformed multipart (busboy: "Unexpected end of form", premature close).
      return new AppError('validation_failed', {
        message: 'The multipart body is incomplete or malformed.',
        details: { field: 'form', reason: (err as Error).message },
      });
  }
}
