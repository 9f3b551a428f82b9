import { ParseResult, Schema } from "effect"

const UNITS: Readonly<Record<string, number>> = { "": 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }

/** A size in bytes: a whole number, or one with a unit (`64KiB`, `16 MiB`, `1GiB`). */
const ByteSize = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String).annotations({ description: "a size" }),
  Schema.Number,
  {
    strict: true,
    decode: (input, _, ast) => {
      const match = typeof input === "number" ? undefined : /^\s*(\d+)\s*([A-Za-z]*)\s*$/.exec(input)
      const bytes = typeof input === "number" ? input : match === null || match === undefined ? undefined : Number(match[1]) * (UNITS[(match[2] ?? "").toLowerCase()] ?? Number.NaN)
      return bytes !== undefined && Number.isSafeInteger(bytes) && bytes > 0
        ? ParseResult.succeed(bytes)
        : ParseResult.fail(new ParseResult.Type(ast, input, "expected a size above zero in bytes, or with a unit B, KiB, MiB or GiB (like `64KiB`)"))
    },
    encode: (bytes) => ParseResult.succeed(bytes)
  }
).annotations({ description: "a size above zero: bytes, or with a unit B, KiB, MiB or GiB (like `64KiB`)" })

/** How much of what an agent and its commands print the daemon keeps, per Attempt (ADR 0085). */
export interface OutputCaps {
  /** The tail kept of each `verify` and `setup` command's output; what came before is counted. */
  readonly verifyBytes: number
  /** The longest stream line read whole; a longer one is cut and marked. */
  readonly lineBytes: number
  /** Transcript rows kept per Attempt; past them, one marker counts what was dropped. */
  readonly transcriptRows: number
  /** Transcript text kept per Attempt, in bytes. */
  readonly transcriptBytes: number
  /** The largest diff harvest reads; a larger change is the agent's failure. */
  readonly diffBytes: number
}

export const defaultOutputCaps: OutputCaps = {
  verifyBytes: 64 * 1024,
  lineBytes: 1024 * 1024,
  transcriptRows: 20_000,
  transcriptBytes: 16 * 1024 * 1024,
  diffBytes: 16 * 1024 * 1024
}

/** A Loop's `output:` block; each key absent keeps its default. */
export const OutputConfig = Schema.Struct({
  verifyBytes: Schema.optionalWith(ByteSize, { default: () => defaultOutputCaps.verifyBytes }).pipe(Schema.fromKey("verify_bytes")),
  lineBytes: Schema.optionalWith(ByteSize, { default: () => defaultOutputCaps.lineBytes }).pipe(Schema.fromKey("line_bytes")),
  transcriptRows: Schema.optionalWith(
    Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(2), Schema.annotations({ description: "a whole number, 2 or more" })),
    { default: () => defaultOutputCaps.transcriptRows }
  ).pipe(Schema.fromKey("transcript_rows")),
  transcriptBytes: Schema.optionalWith(ByteSize, { default: () => defaultOutputCaps.transcriptBytes }).pipe(
    Schema.fromKey("transcript_bytes")
  ),
  diffBytes: Schema.optionalWith(ByteSize, { default: () => defaultOutputCaps.diffBytes }).pipe(Schema.fromKey("diff_bytes"))
})
