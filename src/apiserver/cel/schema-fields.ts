// The part of kube's type-checking of CRD rules that catches most mistakes: a field selected on
// `self`/`oldSelf` (directly or through fields, list items and map values) that the structural schema
// does not declare is a compile error ("undefined field 'x'"), so a typo is refused with the CRD
// instead of failing every write. Values reached through comprehension variables stay unchecked.

import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { type AstNode, children } from './ast.ts';

interface Typed {
  schema: JSONSchemaProps;
  /** The root or an embedded resource: apiVersion, kind and (reduced) metadata always exist. */
  isResource: boolean;
}

// What CEL sees of a resource's metadata.
const RESOURCE_METADATA: JSONSchemaProps = {
  type: 'object',
  properties: { name: { type: 'string' }, generateName: { type: 'string' } },
};

const typedOf = (schema: JSONSchemaProps): Typed => ({
  schema,
  isResource: !!schema['x-kubernetes-embedded-resource'],
});

function isClosedObject(s: JSONSchemaProps): boolean {
  return (
    s.type === 'object' &&
    !s['x-kubernetes-preserve-unknown-fields'] &&
    (s.additionalProperties === undefined || s.additionalProperties === false)
  );
}

function field(base: Typed, name: string, errors: Set<string>): Typed | undefined {
  const s = base.schema;
  if (base.isResource && name === 'metadata') return { schema: RESOURCE_METADATA, isResource: false };
  const prop = s.properties?.[name];
  if (prop) return typedOf(prop);
  if (typeof s.additionalProperties === 'object') return typedOf(s.additionalProperties);
  if (base.isResource && (name === 'apiVersion' || name === 'kind')) return typedOf({ type: 'string' });
  if (isClosedObject(s)) errors.add(`undefined field '${name}'`);
  return undefined;
}

/** kube's "undefined field" errors of an expression whose `roots` are values of `schema`. */
export function undefinedFields(
  ast: AstNode,
  schema: JSONSchemaProps,
  isResource: boolean,
  roots: readonly string[] = ['self', 'oldSelf'],
): string[] {
  const errors = new Set<string>();
  const cache = new Map<AstNode, Typed | undefined>();
  const resolve = (n: AstNode): Typed | undefined => {
    if (cache.has(n)) return cache.get(n);
    let out: Typed | undefined;
    if (n.op === 'id' && roots.includes(n.args as string)) out = { schema, isResource };
    else if (n.op === '.' || n.op === '.?') {
      const [operand, name] = n.args as [AstNode, string];
      const base = resolve(operand);
      if (base) out = field(base, name, errors);
    } else if (n.op === '[]') {
      const base = resolve((n.args as [AstNode, AstNode])[0]);
      const s = base?.schema;
      if (s?.items) out = typedOf(s.items);
      else if (typeof s?.additionalProperties === 'object') out = typedOf(s.additionalProperties);
    }
    cache.set(n, out);
    return out;
  };
  const walk = (n: AstNode): void => {
    resolve(n);
    children(n).forEach(walk);
  };
  walk(ast);
  return [...errors];
}
