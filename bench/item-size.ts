/**
 * An item's size as DynamoDB bills it (developer guide, "Item sizes and formats"): each
 * attribute's name in UTF-8 bytes plus its value's size; a string its UTF-8 bytes, a number
 * about one byte per two significant digits plus one, a boolean or null one byte. A write costs
 * one write unit per started KB of the larger of the item before and after it.
 */
export function dynamoItemBytes(item: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name) + valueBytes(value);
  return bytes;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') {
    const digits = String(Math.abs(value)).replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (typeof value === 'boolean' || value === null) return 1;
  throw new Error(`no size rule for ${typeof value} values`);
}

/** Write units of an update of an item of `bytes` (before or after, whichever is larger). */
export function writeUnitsOf(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 1024));
}
