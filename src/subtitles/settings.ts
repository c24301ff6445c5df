/** Floating subtitles (spec "Floating subtitle access", "Floating subtitle SSE", Limits). */
import { defineSection, settings } from '../platform/config/settings.js';

export const subtitleSettings = defineSection({
  maxViewers: settings.int(
    'PARLEY_SUBTITLE_MAX_VIEWERS',
    'Audience limit of one recording on the floating-subtitle stream (the owner not counted); one more viewer is answered 429.',
    10,
    { min: 1, max: 10_000 },
  ),
  sourceSeatPercent: settings.int(
    'PARLEY_SUBTITLE_SOURCE_SEAT_PERCENT',
    "The share of a recording's subtitle audience (PARLEY_SUBTITLE_MAX_VIEWERS) one source may hold: a client address (IPv6 by its /64), and each feed token; past it that source's new streams get 429 subtitle_audience_full while other sources still get in. 100 turns the share off.",
    30,
    { min: 1, max: 100 },
  ),
  sourceSeatsMin: settings.int(
    'PARLEY_SUBTITLE_SOURCE_SEATS_MIN',
    'The subtitle audience seats one source may always hold, however small the audience limit is (a presenter checking the link on a second device, a household or a small team behind one address).',
    3,
    { min: 1, max: 10_000 },
  ),
  recheckSeconds: settings.int(
    'PARLEY_SUBTITLE_RECHECK_SECONDS',
    'How often an open subtitle stream uses its feed token again (sliding its expiry; a revoked share ends the stream) and rechecks that the recording is live.',
    60,
    { min: 1, max: 600 },
  ),
  exchangesPerRecording: settings.int(
    'PARLEY_SUBTITLE_EXCHANGES_PER_RECORDING',
    "Public share exchanges per recording per minute, all sources together (invalid secrets included). Each source gets the spec's 30 per minute of its own first, so one address cannot lock a recording's exchange; this ceiling only bounds a flood from many addresses (a 48-character share secret cannot be guessed).",
    600,
    { min: 30, max: 1_000_000 },
  ),
});
