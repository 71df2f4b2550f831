// Field paths spelled the way apimachinery's field.Path prints them: `spec.files[2].path` for fields and
// list indexes, `metadata.labels[app]` for map keys. The empty string is the root (a nil *field.Path).

/** A field path as kube prints it; '' is the root. */
export type FieldPath = string;

export function childPath(parent: FieldPath, ...names: string[]): FieldPath {
  let path = parent;
  for (const name of names) path = path === '' ? name : `${path}.${name}`;
  return path;
}

export function indexPath(parent: FieldPath, index: number): FieldPath {
  return `${parent}[${index}]`;
}

export function keyPath(parent: FieldPath, key: string): FieldPath {
  return `${parent}[${key}]`;
}

/** What kube puts in StatusCause.field: a nil path prints as `<nil>`. */
export function causeField(path: FieldPath): string {
  return path === '' ? '<nil>' : path;
}
