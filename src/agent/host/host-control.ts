// The two things the agent does to the machine as a whole: reboot it, and tell whether it rebooted
// since a given moment (the boot id changes on every boot). Behind an interface: tests and simulated
// nodes must never reboot the machine they run on.

export interface HostControl {
  /** Identifies the current boot; a different value means the machine rebooted. */
  bootId(): Promise<string>;
  /** Asks for a reboot. Real hosts return once it is queued; the process dies soon after. */
  reboot(): Promise<void>;
}
