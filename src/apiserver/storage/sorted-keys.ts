// The live keys in key order, so list and count under a prefix are a binary search plus a contiguous walk.
import { compareKeys, prefixUpperBound } from './key-order.ts';

export class SortedKeys {
  #keys: string[] = [];

  get size(): number {
    return this.#keys.length;
  }

  insert(key: string): void {
    const keys = this.#keys;
    // Keys often arrive in order (startup load, generated names): append without searching.
    const last = keys[keys.length - 1];
    if (last === undefined || compareKeys(last, key) < 0) {
      keys.push(key);
      return;
    }
    const index = this.#lowerBound(key);
    if (keys[index] !== key) keys.splice(index, 0, key);
  }

  remove(key: string): void {
    const index = this.#lowerBound(key);
    if (this.#keys[index] === key) this.#keys.splice(index, 1);
  }

  /** Keys starting with prefix and strictly greater than afterKey (when given), in order. */
  *range(prefix: string, afterKey?: string): Generator<string> {
    const keys = this.#keys;
    let index = this.#lowerBound(prefix);
    if (afterKey !== undefined && compareKeys(afterKey, prefix) >= 0) {
      index = this.#lowerBound(afterKey);
      if (keys[index] === afterKey) index++;
    }
    for (; index < keys.length; index++) {
      const key = keys[index]!;
      if (!key.startsWith(prefix)) return;
      yield key;
    }
  }

  countPrefix(prefix: string): number {
    const upper = prefixUpperBound(prefix);
    const end = upper === undefined ? this.#keys.length : this.#lowerBound(upper);
    return end - this.#lowerBound(prefix);
  }

  /** Index of the first key >= key. */
  #lowerBound(key: string): number {
    const keys = this.#keys;
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareKeys(keys[middle]!, key) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
