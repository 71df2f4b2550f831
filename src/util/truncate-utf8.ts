// Cutting a message to a size in UTF-8 bytes, as the API server counts it (an Event's message is at most
// 1,024 bytes: kube's NoteLengthLimit, Go's len), ending with "…" when cut and never inside a character.

const ELLIPSIS = '…';
const ELLIPSIS_BYTES = 3;

/** `text` if it fits in `maxBytes` UTF-8 bytes, else its longest prefix that fits with "…" after it. */
export function truncateUtf8(text: string, maxBytes: number): string {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: short texts need no counting.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  const budget = maxBytes - ELLIPSIS_BYTES;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > budget) break;
    bytes += size;
    end += char.length;
  }
  return `${text.slice(0, end)}${ELLIPSIS}`;
}
