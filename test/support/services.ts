/**
 * Optional services for the scale-out suites. Skipped with a message when unset; with
 * PARLEY_TEST_REQUIRE_SERVICES=1 (CI) a missing setting fails the run instead.
 */
export function testRedisUrl(): string | undefined {
  const url = process.env.REDIS_URL;
  if (!url) {
    if (process.env.PARLEY_TEST_REQUIRE_SERVICES === '1') throw new Error('PARLEY_TEST_REQUIRE_SERVICES=1 but REDIS_URL is not set');
    console.warn('REDIS_URL not set: Redis suites skipped (set it to run them, e.g. redis://127.0.0.1:6379/15)');
  }
  return url;
}
