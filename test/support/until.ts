/**
 * Waits for a condition the test cannot be told about (a webhook received, a process restarted,
 * a count settled): polls it every `pollMs` until it holds, and fails the test, naming `what`,
 * once `timeoutMs` has passed without it.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition', pollMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
