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
  sourceSeatPercent: settings.int(
    'PARLEY_BROADCAST_SOURCE_SEAT_PERCENT',
    "The share of a broadcast's max_viewers one source (client address, IPv6 by its /64; and each viewer_access_token) may hold as seats and queue places together; past it that source's new streams get 503 broadcast_capacity_exceeded. 100 turns the share off.",
    10,
    { min: 1, max: 100 },
  ),
  sourceSeatsMin: settings.int(
    'PARLEY_BROADCAST_SOURCE_SEATS_MIN',
    'The seats and queue places one source may always hold, however small max_viewers is (a household or a small office behind one address).',
    5,
    { min: 1, max: 1_000_000 },
  ),
  channelRateSources: settings.int(
    'PARLEY_BROADCAST_CHANNEL_RATE_SOURCES',
    "The per-channel ceiling on page lookups and verifies, in sources: one source gets the spec's channel rate (twice max_viewers per minute, at least 200), the channel as a whole this many times that.",
    10,
    { min: 1, max: 10_000 },
  ),
  wrongPasswordsPerChannel: settings.int(
    'PARLEY_BROADCAST_WRONG_PASSWORDS_PER_CHANNEL',
    "Wrong passwords per channel in 5 minutes (all sources together) that lock the channel's verify for everyone; the lock against guessing from many addresses. One source is locked after 30 of its own.",
    1000,
    { min: 30, max: 1_000_000 },
  ),
  catchUpIntervalSeconds: settings.int(
    'PARLEY_BROADCAST_CATCH_UP_INTERVAL_SECONDS',
    "How often a live broadcast's catch-up summary for late joiners is written again (seconds), when enough new speech came; also at a pause and when the host drops. One run per broadcast on the hosting node, never per viewer. 0 turns catch-up summaries off for the deployment.",
    180,
    { min: 0, max: 3600 },
  ),
  catchUpMinNewChars: settings.int(
    'PARLEY_BROADCAST_CATCH_UP_MIN_NEW_CHARS',
    'New transcript characters since the last catch-up summary needed before the interval writes another (a pause or a host drop writes one for any new text): fewer runs, and no summarizing and translating again for one short sentence.',
    200,
    { min: 1, max: 100_000 },
  ),
  catchUpMaxInputChars: settings.int(
    'PARLEY_BROADCAST_CATCH_UP_MAX_INPUT_CHARS',
    'The most text one catch-up run gives the summarizer (the cost of a run, in LLM tokens about a quarter of it). Below it a run reads everything said since going live; past it, the previous catch-up summary and the newest sentences (a rolling summary).',
    20_000,
    { min: 1000, max: 200_000 },
  ),
});
