// A set of field paths in kube's FieldsV1 shape: a tree whose edges are path elements ("f:name" for an
// object field, "k:{...}" for an item of an associative list, "v:<json>" for an item of a set) and whose
// nodes say whether the path itself is in the set ("." in FieldsV1, or a leaf `{}`). Sets of managers
// are unioned, subtracted and intersected member by member, like structured-merge-diff's fieldpath.Set.

export class FieldSet {
  /** The path leading to this node is itself in the set. */
  member = false;
  readonly children = new Map<string, FieldSet>();

  static empty(): FieldSet {
    return new FieldSet();
  }

  isEmpty(): boolean {
    if (this.member) return false;
    for (const child of this.children.values()) if (!child.isEmpty()) return false;
    return true;
  }

  /** The child node at `element`, created when missing. */
  child(element: string): FieldSet {
    let node = this.children.get(element);
    if (!node) {
      node = new FieldSet();
      this.children.set(element, node);
    }
    return node;
  }

  /** Adds one path (a list of path elements). */
  insert(path: readonly string[]): void {
    let node: FieldSet = this;
    for (const element of path) node = node.child(element);
    node.member = true;
  }

  has(path: readonly string[]): boolean {
    let node: FieldSet | undefined = this;
    for (const element of path) {
      node = node.children.get(element);
      if (!node) return false;
    }
    return node.member;
  }

  clone(): FieldSet {
    const copy = new FieldSet();
    copy.member = this.member;
    for (const [k, v] of this.children) copy.children.set(k, v.clone());
    return copy;
  }

  union(other: FieldSet): FieldSet {
    const out = this.clone();
    out.addAll(other);
    return out;
  }

  private addAll(other: FieldSet): void {
    if (other.member) this.member = true;
    for (const [k, v] of other.children) this.child(k).addAll(v);
  }

  /** Members of this set that are not members of `other` (not recursive: a member of `other` removes only itself). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && !other.member;
    for (const [k, v] of this.children) {
      const theirs = other.children.get(k);
      const child = theirs ? v.difference(theirs) : v.clone();
      if (!child.isEmpty()) out.children.set(k, child);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && other.member;
    for (const [k, v] of this.children) {
      const theirs = other.children.get(k);
      if (!theirs) continue;
      const child = v.intersection(theirs);
      if (!child.isEmpty()) out.children.set(k, child);
    }
    return out;
  }

  /** Every member path, in FieldsV1 order (sorted path elements, a node before its children). */
  paths(): string[][] {
    const out: string[][] = [];
    const walk = (node: FieldSet, prefix: string[]) => {
      for (const key of [...node.children.keys()].sort()) {
        const child = node.children.get(key)!;
        const path = [...prefix, key];
        if (child.member) out.push(path);
        walk(child, path);
      }
    };
    walk(this, []);
    return out;
  }

  /** The FieldsV1 JSON of this set: `{"f:spec":{"f:replicas":{}},"f:metadata":{"f:labels":{".":{},...}}}`. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = [...this.children.keys()].sort();
    const hasChildren = keys.some((k) => !this.children.get(k)!.isEmpty());
    if (this.member && hasChildren) out['.'] = {};
    for (const key of keys) {
      const child = this.children.get(key)!;
      if (!child.isEmpty()) out[key] = child.toFieldsV1();
    }
    return out;
  }

  /** Parses FieldsV1; throws an Error naming the problem when the document is not one. */
  static fromFieldsV1(doc: unknown): FieldSet {
    const set = new FieldSet();
    const walk = (node: FieldSet, value: unknown, at: string) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new Error(`${at || 'fieldsV1'}: expected an object`);
      }
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length === 0 && at !== '') node.member = true;
      for (const [key, child] of entries) {
        if (key === '.') {
          node.member = true;
          continue;
        }
        if (!/^[fkvi]:/.test(key)) throw new Error(`${at}${key}: unknown path element prefix`);
        if (key.startsWith('k:') || key.startsWith('v:')) {
          try {
            JSON.parse(key.slice(2));
          } catch {
            throw new Error(`${at}${key}: the key is not JSON`);
          }
        }
        walk(node.child(key), child, `${at}${key}.`);
      }
    };
    walk(set, doc, '');
    return set;
  }
}

/** A path element for an object field. */
export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** A path element for an associative-list item: its key fields as JSON with sorted names. */
export function keyElement(keys: Record<string, unknown>): string {
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(keys).sort()) sorted[name] = keys[name];
  return `k:${JSON.stringify(sorted)}`;
}

/** A path element for an item of a set (list-type set). */
export function valueElement(value: unknown): string {
  return `v:${JSON.stringify(value)}`;
}

/** A path element for a list item addressed by position (lists whose items lack their keys). */
export function indexElement(index: number): string {
  return `i:${index}`;
}

/** A path as structured-merge-diff prints it: `.spec.containers[name="app"].image`, `.finalizers[="a"]`. */
export function pathString(path: readonly string[]): string {
  let out = '';
  for (const element of path) {
    const body = element.slice(2);
    switch (element.slice(0, 2)) {
      case 'f:':
        out += `.${body}`;
        break;
      case 'k:': {
        const keys = JSON.parse(body) as Record<string, unknown>;
        out += `[${Object.entries(keys)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`;
        break;
      }
      case 'v:':
        out += `[=${body}]`;
        break;
      default:
        out += `[${body}]`;
    }
  }
  return out;
}
