/** The bytes of base64 that stand for the value's own bits, whatever bytes come before and after it. */
const base64Cores = (bytes: Buffer): ReadonlyArray<string> =>
  [0, 1, 2].map((offset) => {
    // With `offset` bytes before it, the value's bits start at 8 * offset: a character covers 6 bits, and only the
    // characters that lie wholly inside the value's bits are the same in every text that embeds it there.
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64").replace(/=+$/, "")
    return encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6))
  })

const percentEncoded = (bytes: Buffer): string => Array.from(bytes, (b) => `%${b.toString(16).padStart(2, "0")}`).join("")

/**
 * The common encodings of a secret an agent could carry out instead of the value itself: base64 in each of its
 * three alignments (standard and URL-safe alphabets), hex in lower and upper case, and URL-encoding (the usual
 * form, and every byte percent-encoded, in either case). Each is the part that does not depend on the text around
 * it, so a match anywhere in a file finds it. Values that equal the secret, or are shorter than `minLength`, are left out.
 */
export const secretEncodings = (secret: string, minLength = 8): ReadonlyArray<string> => {
  const bytes = Buffer.from(secret, "utf8")
  const base64 = base64Cores(bytes)
  const hex = bytes.toString("hex")
  const percent = percentEncoded(bytes)
  const all = [
    ...base64,
    ...base64.map((s) => s.replaceAll("+", "-").replaceAll("/", "_")),
    hex,
    hex.toUpperCase(),
    encodeURIComponent(secret),
    percent,
    percent.toUpperCase()
  ]
  return [...new Set(all)].filter((encoded) => encoded !== secret && encoded.length >= minLength)
}
