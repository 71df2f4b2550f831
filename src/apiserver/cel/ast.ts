// The few facts about the CEL library's parsed expressions that the checks here need.

export interface AstNode {
  /** 'id', 'value', '.', '.?', '[]', 'call', 'rcall', operators... */
  op: string;
  /** id: the name; '.': [operand, field]; call: [name, args]; rcall: [name, receiver, args]. */
  args: unknown;
  start: number;
  end: number;
}

export function isNode(v: unknown): v is AstNode {
  return typeof v === 'object' && v !== null && 'op' in v && 'start' in v;
}

export function children(n: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const visit = (v: unknown): void => {
    if (isNode(v)) out.push(v);
    else if (Array.isArray(v)) v.forEach(visit);
  };
  if (n.op !== 'id' && n.op !== 'value') visit(n.args);
  return out;
}
