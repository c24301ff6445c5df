/** Broadcasts (spec "Broadcasts and viewers", Limits). */
import { defineSection, settings } from '../platform/config/settings.js';

export const broadcastSettings = defineSection({
  viewerLimit: settings.int(
    'PARLEY_BROADCAST_VIEWER_LIMIT',
    "The account viewer limit: the largest max_viewers a broadcast may set, and its default (every account's).",
    1000,
    { min: 1, max: 1_000_000 },
  ),
  hostWaitSeconds: settings.int(
    'PARLEY_BROADCAST_HOST_WAIT_SECONDS',
    "How long a broadcast whose host's connection dropped waits (frozen) for the host to start it again before it ends.",
    300,
    { min: 1, max: 86_400 },
  ),
  hostLeaseSeconds: settings.int(
    'PARLEY_BROADCAST_HOST_LEASE_SECONDS',
    'How long a hosting process holds a broadcast without renewing it (renewed every third of it); a lapsed lease (the process died) freezes the broadcast and lets a new host start it.',
    30,
    { min: 2, max: 600 },
  ),
  sinkAttempts: settings.int(
    'PARLEY_BROADCAST_SINK_ATTEMPTS',
    'Attempts of one caption POST to a caption sink (YouTube, Zoom), the first included, before its captions are given up.',
    5,
    { min: 1, max: 20 },
  ),
  sinkRetryBaseMs: settings.int(
    'PARLEY_BROADCAST_SINK_RETRY_BASE_MS',
    'Upper bound of the first wait before a caption POST is retried (full-jitter exponential backoff, at most 30 s a wait).',
    1000,
    { min: 1, max: 60_000 },
  ),
  sinkTimeoutMs: settings.int(
    'PARLEY_BROADCAST_SINK_TIMEOUT_MS',
    'Time a caption sink has to answer one POST (ms); no answer counts as a failure and is retried.',
    10_000,
    { min: 100, max: 120_000 },
  ),
});
