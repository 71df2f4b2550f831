// How many bytes of history the revision log holds beyond the live state, and from which revision on
// compaction may drop them. A row becomes history when a later row of its key supersedes it (an update
// or a delete, at that later revision), and a tombstone is history from its own revision: compaction at
// a point T removes exactly the history that became so at or before T (revision-log.ts, compact). The
// ledger keeps one entry per such revision, oldest first, so the store can pick the compaction point
// that brings the history under its byte budget without asking SQLite.

export class HistoryLedger {
  #revisions: number[] = [];
  #bytes: number[] = [];
  /** Index of the oldest entry still held (entries before it were compacted). */
  #head = 0;
  #total = 0;

  /** Bytes of history compaction has not removed yet. */
  get bytes(): number {
    return this.#total;
  }

  /** `bytes` became history at `revision` (not below any revision added before). */
  add(revision: number, bytes: number): void {
    if (bytes <= 0) return;
    const last = this.#revisions.length - 1;
    if (last >= this.#head && this.#revisions[last] === revision) {
      this.#bytes[last]! += bytes;
    } else {
      this.#revisions.push(revision);
      this.#bytes.push(bytes);
    }
    this.#total += bytes;
  }

  /**
   * The lowest revision at or above `floor` whose compaction leaves at most `budget` bytes of history
   * (floor itself when that already does). Never above the newest entry.
   */
  compactionPointFor(budget: number, floor: number): number {
    let total = this.#total;
    let point = floor;
    for (let i = this.#head; i < this.#revisions.length; i++) {
      const revision = this.#revisions[i]!;
      if (revision <= floor) {
        total -= this.#bytes[i]!;
        continue;
      }
      if (total <= budget) break;
      total -= this.#bytes[i]!;
      point = revision;
    }
    return point;
  }

  /** Forgets the history compaction at `revision` removed. */
  compacted(revision: number): void {
    while (this.#head < this.#revisions.length && this.#revisions[this.#head]! <= revision) {
      this.#total -= this.#bytes[this.#head]!;
      this.#head++;
    }
    // Drop the forgotten prefix once it is most of the arrays.
    if (this.#head > 1024 && this.#head * 2 > this.#revisions.length) {
      this.#revisions = this.#revisions.slice(this.#head);
      this.#bytes = this.#bytes.slice(this.#head);
      this.#head = 0;
    }
  }
}
