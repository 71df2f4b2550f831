// Whether an OpenAPI schema is structural (apiextensions schema.ValidateStructural): every specified
// field has a type (except under x-kubernetes-int-or-string / preserve-unknown-fields), logic junctors
// (allOf/anyOf/oneOf/not) only restrict values and never introduce fields, types or defaults, and the
// root metadata may only constrain name and generateName. Causes come sorted like kube's.

import type { StatusCause } from '../errors.ts';
import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import { causeText, forbidden, invalid, required } from './field-errors.ts';
import { childPath, type FieldPath, indexPath, keyPath } from './field-path.ts';
import { compileGoRegexp, GoRegexpError } from './go-regexp.ts';
import { jsonEqual } from './json-value.ts';

type Level = 'root' | 'item' | 'field';

const intOrStringAnyOf = [{ type: 'integer' }, { type: 'string' }];

function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  return anyOf !== undefined && jsonEqual(anyOf, intOrStringAnyOf);
}

function props(path: FieldPath, key: string): FieldPath {
  return keyPath(childPath(path, 'properties'), key);
}

function checkPattern(s: JSONSchemaProps, path: FieldPath): StatusCause[] {
  if (s.pattern === undefined || s.pattern === '') return [];
  try {
    compileGoRegexp(s.pattern);
    return [];
  } catch (err) {
    const message = err instanceof GoRegexpError ? err.message : String(err);
    return [
      invalid(
        childPath(path, 'pattern'),
        s.pattern,
        `must be a valid regular expression, but isn't: ${message}`,
      ),
    ];
  }
}

/** allOf/anyOf/oneOf/not of a node; the int-or-string idioms are allowed to carry types. */
function junctors(
  s: JSONSchemaProps,
  path: FieldPath,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
): StatusCause[] {
  const errs: StatusCause[] = [];
  if (!skipAnyOf) {
    s.anyOf?.forEach((sub, i) => {
      errs.push(...nested(sub, indexPath(childPath(path, 'anyOf'), i), false));
    });
  }
  s.allOf?.forEach((sub, i) => {
    errs.push(...nested(sub, indexPath(childPath(path, 'allOf'), i), skipFirstAllOfAnyOf && i === 0));
  });
  s.oneOf?.forEach((sub, i) => {
    errs.push(...nested(sub, indexPath(childPath(path, 'oneOf'), i), false));
  });
  if (s.not) errs.push(...nested(s.not, childPath(path, 'not'), false));
  errs.push(...checkPattern(s, path));
  return errs;
}

/** A schema under a logic junctor: value validations only. */
function nested(v: JSONSchemaProps, path: FieldPath, skipAnyOf: boolean): StatusCause[] {
  const errs = junctors(v, path, skipAnyOf, false);
  if (v.items) errs.push(...nested(v.items, childPath(path, 'items'), false));
  for (const [key, sub] of Object.entries(v.properties ?? {}))
    errs.push(...nested(sub, props(path, key), false));
  const at = (name: string) => childPath(path, name);
  if (v.type) errs.push(forbidden(at('type'), 'must be empty to be structural'));
  if (v.additionalProperties !== undefined)
    errs.push(forbidden(at('additionalProperties'), 'must be undefined to be structural'));
  if (v.default !== undefined) errs.push(forbidden(at('default'), 'must be undefined to be structural'));
  if ((v as { title?: string }).title) errs.push(forbidden(at('title'), 'must be empty to be structural'));
  if (v.description) errs.push(forbidden(at('description'), 'must be empty to be structural'));
  if (v.nullable) errs.push(forbidden(at('nullable'), 'must be false to be structural'));
  if (v['x-kubernetes-preserve-unknown-fields']) {
    errs.push(forbidden(at('x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  }
  if (v['x-kubernetes-embedded-resource']) {
    errs.push(forbidden(at('x-kubernetes-embedded-resource'), 'must be false to be structural'));
  }
  if (v['x-kubernetes-int-or-string'])
    errs.push(forbidden(at('x-kubernetes-int-or-string'), 'must be false to be structural'));
  if (v['x-kubernetes-list-map-keys']?.length) {
    errs.push(forbidden(at('x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  }
  if (v['x-kubernetes-list-type'] !== undefined) {
    errs.push(forbidden(at('x-kubernetes-list-type'), 'must be undefined to be structural'));
  }
  if (v['x-kubernetes-map-type'] !== undefined)
    errs.push(forbidden(at('x-kubernetes-map-type'), 'must be undefined to be structural'));
  if (v['x-kubernetes-validations']?.length) {
    errs.push(forbidden(at('x-kubernetes-validations'), 'must be empty to be structural'));
  }
  if (v.properties && Object.hasOwn(v.properties, 'metadata')) {
    errs.push(forbidden(props(path, 'metadata'), 'must not be specified in a nested context'));
  }
  return errs;
}

const metadataMayHave = new Set(['type', 'default', 'properties']);

function metadataInvariants(
  m: JSONSchemaProps,
  checkMetadata: boolean,
  level: Level,
  path: FieldPath,
): StatusCause[] {
  const errs: StatusCause[] = [];
  if (checkMetadata && m.type !== 'object')
    errs.push(invalid(childPath(path, 'type'), m.type ?? '', 'must be object'));
  if (level === 'root') {
    const names = Object.keys(m.properties ?? {});
    const onlyNames = names.every((n) => n === 'name' || n === 'generateName');
    const otherKeys = Object.keys(m).some((k) => !metadataMayHave.has(k));
    if (!onlyNames || otherKeys) {
      errs.push(
        forbidden(
          path,
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
    }
  }
  return errs;
}

function invariants(s: JSONSchemaProps, level: Level, path: FieldPath): StatusCause[] {
  const errs: StatusCause[] = [];
  const embedded = !!s['x-kubernetes-embedded-resource'];
  const intOrString = !!s['x-kubernetes-int-or-string'];
  const preserve = !!s['x-kubernetes-preserve-unknown-fields'];

  if (s.type === 'array' && !s.items) errs.push(required(childPath(path, 'items'), 'must be specified'));
  if (s.items) errs.push(...invariants(s.items, 'item', childPath(path, 'items')));
  for (const [key, sub] of Object.entries(s.properties ?? {}))
    errs.push(...invariants(sub, 'field', props(path, key)));
  if (s.additionalProperties !== undefined) {
    if (level === 'root')
      errs.push(forbidden(childPath(path, 'additionalProperties'), 'must not be used at the root'));
    if (typeof s.additionalProperties === 'object') {
      errs.push(...invariants(s.additionalProperties, 'field', childPath(path, 'additionalProperties')));
    }
  }
  if (intOrString && preserve) {
    errs.push(
      invalid(
        childPath(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString && embedded) {
    errs.push(
      invalid(
        childPath(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }

  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf =
    s.allOf !== undefined && s.allOf.length >= 1 && isIntOrStringAnyOf(s.allOf[0]!.anyOf);
  errs.push(...junctors(s, path, skipAnyOf, skipFirstAllOfAnyOf));

  if (embedded && s.type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(
      s.type ? invalid(childPath(path, 'type'), s.type, detail) : required(childPath(path, 'type'), detail),
    );
  } else if (!s.type && !intOrString && !preserve) {
    const detail = {
      root: 'must not be empty at the root',
      item: 'must not be empty for specified array items',
      field: 'must not be empty for specified object fields',
    }[level];
    errs.push(required(childPath(path, 'type'), detail));
  }
  if (embedded && s.additionalProperties !== undefined) {
    errs.push(
      forbidden(
        childPath(path, 'additionalProperties'),
        'must not be used if x-kubernetes-embedded-resource is set',
      ),
    );
  }
  if (level === 'root' && s.type && s.type !== 'object') {
    errs.push(invalid(childPath(path, 'type'), s.type, 'must be object at the root'));
  }

  const checkMetadata = level === 'root' || embedded;
  for (const field of ['kind', 'apiVersion'] as const) {
    const sub = s.properties?.[field];
    if (sub && checkMetadata && sub.type !== 'string') {
      errs.push(invalid(childPath(props(path, field), 'type'), sub.type ?? '', 'must be string'));
    }
  }
  const metadata = s.properties?.metadata;
  if (metadata) errs.push(...metadataInvariants(metadata, checkMetadata, level, props(path, 'metadata')));

  if (embedded && !preserve && Object.keys(s.properties ?? {}).length === 0) {
    errs.push(
      required(
        childPath(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
  return errs;
}

/** Fields and items a junctor mentions must also be specified in the structural part. */
function completeness(
  v: JSONSchemaProps,
  s: JSONSchemaProps | undefined,
  sPath: FieldPath,
  vPath: FieldPath,
): StatusCause[] {
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs: StatusCause[] = [];
  const junctorsOf = (node: JSONSchemaProps, target: JSONSchemaProps, nodePath: FieldPath) => {
    if (node.not) errs.push(...completeness(node.not, target, sPath, childPath(nodePath, 'not')));
    for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
      node[junctor]?.forEach((sub, i) => {
        errs.push(...completeness(sub, target, sPath, indexPath(childPath(nodePath, junctor), i)));
      });
    }
  };
  junctorsOf(v, s, vPath);
  if (v.items)
    errs.push(...completeness(v.items, s.items, childPath(sPath, 'items'), childPath(vPath, 'items')));
  for (const [key, sub] of Object.entries(v.properties ?? {})) {
    errs.push(...completeness(sub, s.properties?.[key], props(sPath, key), props(vPath, key)));
  }
  return errs;
}

// kube checks completeness for the root's junctors only (validateStructuralCompleteness).
function rootCompleteness(s: JSONSchemaProps, path: FieldPath): StatusCause[] {
  const errs: StatusCause[] = [];
  if (s.not) errs.push(...completeness(s.not, s, path, childPath(path, 'not')));
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    s[junctor]?.forEach((sub, i) => {
      errs.push(...completeness(sub, s, path, indexPath(childPath(path, junctor), i)));
    });
  }
  return errs;
}

/** Causes that make schema non-structural, sorted by their text as kube sorts them. */
export function validateStructuralSchema(schema: JSONSchemaProps, path: FieldPath): StatusCause[] {
  const errs = [...invariants(schema, 'root', path), ...rootCompleteness(schema, path)];
  return errs.sort((a, b) => {
    const ta = causeText(a);
    const tb = causeText(b);
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  });
}
