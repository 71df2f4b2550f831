// Takes, renewals and releases of the slot Leases run one at a time, in the order asked: a timer's
// renewal never interleaves with a take or a release, and a step that awaits the API server sees
// the agent's own state change only by the watch's events, never by another step.

export class WorkQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` after everything queued before it; a failure reaches the caller only. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves once everything queued so far has run. */
  async drained(): Promise<void> {
    await this.tail;
  }
}
