// Protobuf decoding bounded by what it produces, as YAML is by its aliases (src/util/bounded-yaml.ts):
// an empty repeated message is two bytes on the wire but an object with its zero-valued fields in
// JSON, and every field read is an object of its own while it is decoded, so a body within the size
// limit could still expand tenfold and more. Decoding is synchronous, so one budget is active at a
// time; it is charged in units of about one byte of the JSON produced.

/** What one wire field costs while decoded (its record and view), in JSON-byte units. */
export const FIELD_UNITS = 32;

export class DecodeBudgetExceeded extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`the decoded object would be larger than ${limit} bytes`);
    this.limit = limit;
  }
}

let active: { limit: number; spent: number } | undefined;

/** Runs `decode` with a budget of `limit` units; throws DecodeBudgetExceeded as soon as it is spent. */
export function withDecodeBudget<T>(limit: number, decode: () => T): T {
  const outer = active;
  active = { limit, spent: 0 };
  try {
    return decode();
  } finally {
    active = outer;
  }
}

/** Charges the active budget, if any. */
export function chargeDecode(units: number): void {
  if (active === undefined) return;
  active.spent += units;
  if (active.spent > active.limit) throw new DecodeBudgetExceeded(active.limit);
}
