// What /proc says about a child process the benches start (Linux).

import { readFileSync } from 'node:fs';

/** user + system CPU time of a process, seconds (fields 14 and 15 of /proc/pid/stat, 1/100 s ticks). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The 1-minute load average. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}
