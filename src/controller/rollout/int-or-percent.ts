// Resolves the int-or-percent settings of a rolling update against the number of nodes.

export type IntOrPercent = number | string;

export class IntOrPercentError extends Error {}

/**
 * A number as is; "25%" of total, rounded down (maxUnavailable) or up (canary). The result is at least
 * `minimum`: a budget of 10% on a pool of 5 nodes still lets one node update.
 */
export function resolveIntOrPercent(
  value: IntOrPercent,
  total: number,
  rounding: 'down' | 'up',
  minimum = 1,
): number {
  let result: number;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0)
      throw new IntOrPercentError(`${value} is not a count of nodes`);
    result = value;
  } else {
    const match = /^(\d+)%$/.exec(value.trim());
    if (match) {
      const exact = (Number(match[1]) * total) / 100;
      result = rounding === 'down' ? Math.floor(exact) : Math.ceil(exact);
    } else if (/^\d+$/.test(value.trim())) {
      result = Number(value.trim());
    } else {
      throw new IntOrPercentError(`${JSON.stringify(value)} is neither a number nor a percentage`);
    }
  }
  return Math.max(minimum, result);
}
