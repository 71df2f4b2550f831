// A guard against rules whose evaluation cost explodes: kube-apiserver meters every CEL call and
// stops one at 1,000,000 cost units (PerCallLimit). The CEL library here has no meter, so the guard
// bounds the cost before evaluating: comprehensions nested d deep over an input of n values take up
// to n^d steps. Single comprehensions (linear in the request, which is itself bounded) always run.

export const PER_CALL_COST_LIMIT = 1_000_000;

/** Kube's message when a call is stopped, or undefined when the expression may run. */
export function costExceeded(depth: number, inputSize: number): string | undefined {
  if (depth < 2) return undefined;
  const estimate = inputSize ** depth;
  return estimate > PER_CALL_COST_LIMIT ? 'operation cancelled: actual cost limit exceeded' : undefined;
}
