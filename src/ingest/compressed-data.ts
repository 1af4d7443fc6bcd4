/**
 * HTTP's "deflate" is meant to be zlib-wrapped (RFC 9110), but some clients send raw deflate. A zlib
 * stream starts with CMF/FLG bytes: compression method 8 in CMF's low nibble and CMF·256+FLG a
 * multiple of 31; raw deflate data practically never matches both.
 */
export function isZlibWrapped(first: number, second: number | undefined): boolean {
  if ((first & 0x0f) !== 8 || first >> 4 > 7) return false;
  return second === undefined || ((first << 8) | second) % 31 === 0;
}

/** gzip's magic number. */
export function isGzip(data: Buffer): boolean {
  return data[0] === 0x1f && data[1] === 0x8b;
}
