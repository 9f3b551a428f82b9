import { ParseResult, Schema } from "effect"

const units: Record<string, number> = {
  "": 1, b: 1,
  k: 1024, kb: 1000, kib: 1024,
  m: 1024 ** 2, mb: 1000 ** 2, mib: 1024 ** 2,
  g: 1024 ** 3, gb: 1000 ** 3, gib: 1024 ** 3,
  t: 1024 ** 4, tb: 1000 ** 4, tib: 1024 ** 4
}

/** Bytes from a size as written in usine.yaml (`512MiB`, `4G`, `1.5GB`, `1048576`), or `undefined`. */
export const parseByteSize = (input: number | string): number | undefined => {
  if (typeof input === "number") return Number.isSafeInteger(input) && input > 0 ? input : undefined
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(input.trim())
  const suffix = (match?.[2] ?? "").toLowerCase()
  const unit = match !== null && Object.hasOwn(units, suffix) ? units[suffix] : undefined
  if (match === null || unit === undefined) return undefined
  const exact = Number(match[1]) * unit
  const bytes = Math.floor(exact)
  // A fraction of a byte is a typo, not a size.
  if (unit === 1 && bytes !== exact) return undefined
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined
}

/** A positive number of bytes, written as a number or with a unit (`K`/`KiB` = 1024, `KB` = 1000, up to `T`). */
export const ByteSize = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String).annotations({ description: "a size in bytes, like `512MiB` or `4G`" }),
  Schema.Number,
  {
    strict: true,
    decode: (input, _, ast) => {
      const bytes = parseByteSize(input)
      return bytes === undefined
        ? ParseResult.fail(
            new ParseResult.Type(ast, input, `expected a size such as \`512MiB\`, \`4G\` or \`1048576\` (bytes), got ${JSON.stringify(input)}`)
          )
        : ParseResult.succeed(bytes)
    },
    encode: (bytes) => ParseResult.succeed(bytes)
  }
)

/** `1.5 GiB`, `512 MiB`: a size for people. */
export const formatBytes = (bytes: number): string => {
  const steps = ["B", "KiB", "MiB", "GiB", "TiB"]
  let value = bytes
  let step = 0
  while (value >= 1024 && step < steps.length - 1) {
    value /= 1024
    step++
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${steps[step]}`
}
