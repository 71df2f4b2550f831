// Polling for integration tests: things the system does in the background (a watch delivered, an
// agent applied, a kubelet posted status) are awaited with a generous deadline, never a fixed sleep.

/**
 * Polls until `check` returns something other than undefined or false, and resolves with it. A
 * throwing check counts as not yet; after `timeoutMs` it fails naming `what` and the last error.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (performance.now() > deadline) {
      const cause = last === undefined ? '' : `: ${last instanceof Error ? last.message : String(last)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
