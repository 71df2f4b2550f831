// A promise that resolves after `ms`. Not node:timers/promises: a module the bundled agent would load
// on every node only for this (issue 17, idle RSS).

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
