// Whether a process id names a live process, for lock files that record their holder's pid.

/** True when `pid` is running: signal 0 reaches it, or it exists but belongs to another user (EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
