// A simulated machine's power, as its processes see it. A killed machine's agent is told to stop, but
// an apply in flight would otherwise run on: finish the kubelet's restart, report Done to the API
// server, long after the machine "lost power" (a controller could then see a dead node healthy on its
// new revision). What the agent reaches through a fence — its API client, systemd, files, packages, host
// — refuses every call once the power is cut, as a dead machine does nothing more.

export class PowerCut extends Error {
  constructor(machine: string) {
    super(`${machine}: the machine lost power`);
    this.name = 'PowerCut';
  }
}

export class PowerFence {
  private on = true;
  private readonly machine: string;

  constructor(machine: string) {
    this.machine = machine;
  }

  get powered(): boolean {
    return this.on;
  }

  /** From now on, every call through this fence throws PowerCut (a rejection, for async callers). */
  cut(): void {
    this.on = false;
  }

  /**
   * `target` as the machine's processes reach it: its methods run on `target` itself (private state
   * intact) while the power is on, and throw once it is cut. Other properties read through.
   */
  wrap<T extends object>(target: T): T {
    const calls = new Map<PropertyKey, (...args: unknown[]) => unknown>();
    return new Proxy(target, {
      get: (object, property) => {
        const value: unknown = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        let call = calls.get(property);
        if (call === undefined) {
          call = (...args: unknown[]) => {
            if (!this.on) throw new PowerCut(this.machine);
            const method = Reflect.get(object, property, object) as (...a: unknown[]) => unknown;
            return method.apply(object, args);
          };
          calls.set(property, call);
        }
        return call;
      },
    });
  }
}
