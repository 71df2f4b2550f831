// Maps storage keys back to the resource they belong to, for controllers that react to raw store events.

import type { ResourceDefinition } from '../registry/resource-definition.ts';
import type { ResourceRegistry } from '../registry/resource-registry.ts';
import { parseKey } from '../storage/keys.ts';

/** The preferred served definition of the resource a key belongs to. */
export function definitionForKey(registry: ResourceRegistry, key: string): ResourceDefinition | undefined {
  const parsed = parseKey(key);
  if (!parsed) return undefined;
  return registry.versionsOf(parsed.group, parsed.resource)[0];
}

/** Runs deferred work outside the store's synchronous event callback, coalescing repeats by name. */
export class DeferredQueue {
  private readonly pending = new Map<string, () => void>();
  private readonly onError: (error: unknown) => void;
  private scheduled = false;
  private closed = false;

  /** onError: work that threw (reported as a process warning unless given). */
  constructor(onError?: (error: unknown) => void) {
    this.onError =
      onError ??
      ((error) =>
        process.emitWarning(
          `controller work failed: ${error instanceof Error ? error.message : String(error)}`,
          'ControllerWarning',
        ));
  }

  add(id: string, work: () => void): void {
    if (this.closed) return;
    this.pending.set(id, work);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    const batch = [...this.pending.values()];
    this.pending.clear();
    for (const work of batch) {
      if (this.closed) return;
      // One controller's failure (a write the store refused at its quota) must not end the server.
      try {
        work();
      } catch (error) {
        this.onError(error);
      }
    }
  }

  close(): void {
    this.closed = true;
    this.pending.clear();
  }
}
