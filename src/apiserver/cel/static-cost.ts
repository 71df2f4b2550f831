// A conservative static cost estimate of a CRD's CEL rules, with kube's constants, so the embedded
// server refuses a CRD a real kube-apiserver would refuse for cost (apiextensions validation:
// StaticEstimatedCostLimit per rule, StaticEstimatedCRDCostLimit per CRD; a rule's cost is its
// estimated maximum times the most times it can run: the product of maxItems/maxProperties above it).
// It follows cel-go's estimator (checker/cost.go) and kube's library costs, rounding up where they
// differ: strings cost 0.1 per character traversed (by maxLength), `matches` that times 0.25 per
// character of the pattern, comprehensions their body once per item (by maxItems). A size the schema
// does not bound counts as kube counts it: as big as a request (3 MiB).

import type { JSONSchemaProps } from '../registry/resource-definition.ts';
import type { AstNode } from './ast.ts';

export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** kube-apiserver's largest request (3 MiB): the bound of anything the schema leaves unbounded. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** Sizes this big come from no bound in the schema (the fewest of those: lists of objects, ~1M). */
const UNBOUNDED = Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / 5);

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;

interface Estimate {
  cost: number;
  /** Largest length of a string, or number of items of a list or map. */
  size: number;
  schema?: JSONSchemaProps | undefined;
}

const RESOURCE_METADATA: JSONSchemaProps = {
  type: 'object',
  properties: { name: { type: 'string' }, generateName: { type: 'string' } },
};

/** Fewest bytes a value of the schema takes in JSON, as kube estimates it. */
function minJsonSize(s: JSONSchemaProps | undefined): number {
  if (!s) return 1;
  if (s.type === 'string') return 2;
  if (s.type === 'boolean') return 4;
  if (s.type === 'object' || s.type === 'array') return 2;
  return 1;
}

/**
 * Most items of a list (or entries of a map) whose schema sets no maxItems (maxProperties): as many as
 * fit in a request, as kube estimates it (each item at its smallest, plus a comma).
 */
export function unboundedCardinality(items: JSONSchemaProps | undefined): number {
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minJsonSize(items) + 1));
}

function sizeOf(s: JSONSchemaProps | undefined): number {
  if (!s) return MAX_REQUEST_SIZE_BYTES;
  // As kube: an enum's longest value bounds a string without maxLength.
  if (s.type === 'string' && s.enum && s.enum.length > 0 && s.maxLength === undefined) {
    return Math.max(...s.enum.map((v) => (typeof v === 'string' ? [...v].length : 0)));
  }
  if (s.type === 'string') return s.maxLength ?? MAX_REQUEST_SIZE_BYTES;
  if (s.type === 'array') return s.maxItems ?? unboundedCardinality(s.items);
  if (s.type === 'object') {
    const values = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    return s.maxProperties ?? unboundedCardinality(values);
  }
  if (s['x-kubernetes-int-or-string']) return s.maxLength ?? MAX_REQUEST_SIZE_BYTES;
  return 1;
}

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

class Estimator {
  private readonly scopes: Map<string, JSONSchemaProps | undefined>[] = [];
  /** Whether the rule traverses a string, list or map the schema does not bound. */
  unbounded = false;
  private readonly self: JSONSchemaProps;
  private readonly isResource: boolean;

  constructor(self: JSONSchemaProps, isResource: boolean) {
    this.self = self;
    this.isResource = isResource;
  }

  estimate(n: AstNode): Estimate {
    const args = n.args as unknown[];
    switch (n.op) {
      case 'value':
        return { cost: 0, size: typeof n.args === 'string' ? [...n.args].length : 1 };
      case 'id': {
        const name = n.args as string;
        for (let i = this.scopes.length - 1; i >= 0; i--) {
          const scope = this.scopes[i]!;
          if (scope.has(name)) {
            const s = scope.get(name);
            return { cost: 1, size: sizeOf(s), schema: s };
          }
        }
        const s = name === 'self' || name === 'oldSelf' ? this.self : undefined;
        return { cost: 1, size: sizeOf(s), schema: s };
      }
      case '.':
      case '.?': {
        const operand = this.estimate(args[0] as AstNode);
        const field = args[1] as string;
        let s: JSONSchemaProps | undefined;
        if (operand.schema === this.self && this.isResource && field === 'metadata') {
          s = this.self.properties?.metadata?.properties ? this.self.properties.metadata : RESOURCE_METADATA;
        } else {
          const parent = operand.schema;
          s =
            parent?.properties?.[field] ??
            (typeof parent?.additionalProperties === 'object' ? parent.additionalProperties : undefined);
        }
        return { cost: operand.cost + 1, size: sizeOf(s), schema: s };
      }
      case '[]':
      case '[?]': {
        const operand = this.estimate(args[0] as AstNode);
        const index = this.estimate(args[1] as AstNode);
        const parent = operand.schema;
        const s =
          parent?.items ??
          (typeof parent?.additionalProperties === 'object' ? parent.additionalProperties : undefined);
        return { cost: operand.cost + index.cost + 1, size: sizeOf(s), schema: s };
      }
      case 'list': {
        const items = (args as AstNode[]).map((a) => this.estimate(a));
        return { cost: LIST_CREATE + sum(items), size: items.length };
      }
      case 'map':
        return { cost: 30 + sum(this.all(args)), size: (args as unknown[]).length };
      case '!_':
      case '-_':
        return { cost: this.estimate(args as unknown as AstNode).cost + 1, size: 1 };
      case '&&':
      case '||':
      case '?:':
        // Every branch counted: an upper bound of cel-go's estimate.
        return { cost: sum(this.all(args)) + 1, size: Math.max(...this.all(args).map((e) => e.size)) };
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const [a, b] = this.all(args) as [Estimate, Estimate];
        return { cost: a.cost + b.cost + 1 + this.traversal(Math.min(a.size, b.size)), size: 1 };
      }
      case 'in': {
        const [a, b] = this.all(args) as [Estimate, Estimate];
        return {
          cost: a.cost + b.cost + 1 + this.iterations(b.size) * (1 + this.traversal(a.size)),
          size: 1,
        };
      }
      case '+': {
        const [a, b] = this.all(args) as [Estimate, Estimate];
        return { cost: a.cost + b.cost + 1 + this.traversal(a.size + b.size), size: a.size + b.size };
      }
      case 'call':
        return this.call(args[0] as string, undefined, args[1] as AstNode[]);
      case 'rcall':
        return this.call(args[0] as string, args[1] as AstNode, args[2] as AstNode[]);
      default:
        // Arithmetic and anything else: one step plus its operands.
        return { cost: sum(this.all(Array.isArray(args) ? args : [])) + 1, size: MAX_REQUEST_SIZE_BYTES };
    }
  }

  /** The cost of a pass over `size` characters (or items). */
  private traversal(size: number): number {
    return Math.ceil(this.iterations(size) * STRING_TRAVERSAL);
  }

  /** `size`, noting when it is not bounded by the schema. */
  private iterations(size: number): number {
    if (size >= UNBOUNDED) this.unbounded = true;
    return size;
  }

  private all(args: unknown): Estimate[] {
    return (Array.isArray(args) ? args : [])
      .filter((a): a is AstNode => typeof a === 'object' && a !== null && 'op' in a)
      .map((a) => this.estimate(a));
  }

  private call(name: string, receiver: AstNode | undefined, argNodes: AstNode[]): Estimate {
    if (receiver && COMPREHENSIONS.has(name)) return this.comprehension(name, receiver, argNodes);
    const recv = receiver ? this.estimate(receiver) : undefined;
    const args = argNodes.map((a) => this.estimate(a));
    const base = (recv?.cost ?? 0) + sum(args) + 1;
    const first = recv ?? args[0];
    switch (name) {
      case 'has':
        return { cost: sum(args) + 1, size: 1 };
      case 'size':
        return { cost: base, size: 1 };
      case 'matches': {
        const [target, pattern] = recv ? [recv, args[0]] : [args[0], args[1]];
        return {
          cost: base + this.traversal(target?.size ?? 0) * Math.ceil((pattern?.size ?? 0) * REGEX_LENGTH),
          size: 1,
        };
      }
      case 'startsWith':
      case 'endsWith':
        return { cost: base + this.traversal(args[0]?.size ?? 0), size: 1 };
      case 'contains':
      case 'indexOf':
      case 'lastIndexOf':
        return {
          cost: base + this.traversal(first?.size ?? 0) * Math.max(1, this.traversal(args[0]?.size ?? 0)),
          size: 1,
        };
      case 'sum':
      case 'min':
      case 'max':
      case 'isSorted':
        return { cost: base + this.iterations(recv?.size ?? 0), size: 1 };
      default:
        // Conversions (duration, timestamp, int, string), getHours, isURL, ...: a pass over their inputs.
        return {
          cost: base + this.traversal(Math.max(0, ...[recv, ...args].map((e) => (e ? e.size : 0)))),
          size: Math.max(1, ...[recv, ...args].map((e) => (e ? e.size : 0))),
        };
    }
  }

  private comprehension(name: string, receiver: AstNode, argNodes: AstNode[]): Estimate {
    const range = this.estimate(receiver);
    const variable = (argNodes[0]?.args ?? '') as string;
    const s = range.schema;
    // A list's items, or a map's keys (strings the schema cannot bound).
    const itemSchema =
      s?.type === 'array' ? s.items : s?.type === 'object' ? { type: 'string' as const } : undefined;
    this.scopes.push(new Map([[variable, itemSchema]]));
    try {
      const body = argNodes.slice(1).map((a) => this.estimate(a));
      const perItem = sum(body) + 1;
      const result = name === 'map' || name === 'filter' ? LIST_CREATE : 0;
      return {
        cost: range.cost + result + range.size * perItem,
        size: name === 'map' || name === 'filter' ? range.size : 1,
      };
    } finally {
      this.scopes.pop();
    }
  }
}

function sum(estimates: Estimate[]): number {
  return estimates.reduce((total, e) => total + e.cost, 0);
}

export interface RuleEstimate {
  /** The estimated largest cost of one evaluation. */
  cost: number;
  /** Whether it traverses a string, list or map without maxLength, maxItems or maxProperties. */
  unbounded: boolean;
}

/** The estimate of a rule at the schema node `schema` (`isResource`: the root or an embedded resource). */
export function estimateRuleCost(ast: AstNode, schema: JSONSchemaProps, isResource: boolean): RuleEstimate {
  const estimator = new Estimator(schema, isResource);
  const cost = Math.ceil(estimator.estimate(ast).cost);
  return { cost, unbounded: estimator.unbounded };
}

/** kube's message for an estimate over its limit. */
export function costExceededMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown =
    factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
