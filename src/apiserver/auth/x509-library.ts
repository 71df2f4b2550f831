// Loads @peculiar/x509. The library resolves its algorithms through tsyringe, which refuses to load
// unless a Reflect metadata API exists (normally the reflect-metadata package, which is not one of
// our dependencies). tsyringe only stores and reads per-class constructor metadata, so a small
// WeakMap-backed implementation is installed first, and only where none exists. The library is
// imported dynamically so that nothing (such as import sorting) can evaluate it before the shim.

type MetadataTarget = object;
type MetadataStore = Map<unknown, unknown>;

interface ReflectMetadataApi {
  defineMetadata(key: unknown, value: unknown, target: MetadataTarget): void;
  getOwnMetadata(key: unknown, target: MetadataTarget): unknown;
  getMetadata(key: unknown, target: MetadataTarget): unknown;
  hasOwnMetadata(key: unknown, target: MetadataTarget): boolean;
  hasMetadata(key: unknown, target: MetadataTarget): boolean;
  metadata(key: unknown, value: unknown): (target: MetadataTarget) => void;
}

function installReflectMetadataShim(): void {
  const reflect = Reflect as unknown as Partial<ReflectMetadataApi>;
  if (typeof reflect.getMetadata === 'function') return;
  const stores = new WeakMap<MetadataTarget, MetadataStore>();
  const own = (target: MetadataTarget): MetadataStore | undefined => stores.get(target);
  // Metadata is inherited along the prototype chain, as in the reflect-metadata proposal.
  const lookup = (key: unknown, target: MetadataTarget): MetadataStore | undefined => {
    for (let at: MetadataTarget | null = target; at !== null; at = Object.getPrototypeOf(at)) {
      const store = own(at);
      if (store?.has(key)) return store;
    }
    return undefined;
  };
  const api: ReflectMetadataApi = {
    defineMetadata(key, value, target) {
      let store = own(target);
      if (!store) {
        store = new Map();
        stores.set(target, store);
      }
      store.set(key, value);
    },
    getOwnMetadata: (key, target) => own(target)?.get(key),
    getMetadata: (key, target) => lookup(key, target)?.get(key),
    hasOwnMetadata: (key, target) => own(target)?.has(key) ?? false,
    hasMetadata: (key, target) => lookup(key, target) !== undefined,
    metadata: (key, value) => (target) => api.defineMetadata(key, value, target),
  };
  Object.assign(Reflect, api);
}

installReflectMetadataShim();

/** The @peculiar/x509 module namespace. Import types with `import type ... from '@peculiar/x509'`. */
export const x509 = await import('@peculiar/x509');
