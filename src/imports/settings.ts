/** File imports (spec "Imports", "Import status", Limits). */
import { defineSection, settings } from '../platform/config/settings.js';

export const importSettings = defineSection({
  maxBytes: settings.int(
    'PARLEY_IMPORT_MAX_BYTES',
    'Largest upload accepted by POST /imports (bytes; 413 import_file_too_large above).',
    500 * 1024 * 1024,
    {
      min: 1024,
    },
  ),
  minDurationMs: settings.int(
    'PARLEY_IMPORT_MIN_DURATION_MS',
    'Shortest import (ms); also the lower bound of check-quota duration_ms.',
    1_000,
    {
      min: 1,
    },
  ),
  maxDurationMs: settings.int(
    'PARLEY_IMPORT_MAX_DURATION_MS',
    'Longest import (ms); also the upper bound of check-quota duration_ms.',
    36_000_000,
    {
      min: 1,
    },
  ),
  maxTempBytes: settings.int(
    'PARLEY_IMPORT_MAX_TEMP_BYTES',
    'Temporary disk one import may use while it is processed (bytes): the decoded 16 kHz PCM (32,000 bytes per second of audio, counted as it is written) plus the M4A copy. Past it the import fails with import_duration_out_of_range and its files are removed.',
    2 * 1024 * 1024 * 1024,
    { min: 1024 * 1024 },
  ),
  startTimeoutMs: settings.int(
    'PARLEY_IMPORT_START_TIMEOUT_MS',
    'An import still pending after this long (no worker took it) fails with PROCESSING_TIMEOUT (ms).',
    30 * 60_000,
    { min: 100 },
  ),
  attempts: settings.int(
    'PARLEY_IMPORT_ATTEMPTS',
    'Attempts of an import job when engines report temporary errors (the first included).',
    3,
    {
      min: 1,
      max: 20,
    },
  ),
  retryDelayMs: settings.int(
    'PARLEY_IMPORT_RETRY_DELAY_MS',
    'Upper bound of the delay before the first retry of an import job (ms); doubles per attempt, the delay drawn at random below it (full jitter).',
    5_000,
    {
      min: 0,
    },
  ),
  uploadsPerMinute: settings.int(
    'PARLEY_IMPORT_UPLOADS_PER_MINUTE',
    'Uploads an account may start per minute; more get 429 too_many_requests with Retry-After (before the file is read).',
    30,
    { min: 1 },
  ),
  concurrency: settings.int('PARLEY_IMPORT_CONCURRENCY', 'Import jobs one worker process runs at once.', 1, { min: 1, max: 64 }),
});
