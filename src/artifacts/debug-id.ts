/** A JavaScript debug id in its canonical form (a lower-case, dashed UUID), or null if it is not one. */
export function canonicalDebugId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const hex = value.trim().replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
