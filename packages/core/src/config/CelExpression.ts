import { Environment, type ParseResult as CelParseResult } from "@marcbachmann/cel-js"
import { Either } from "effect"
import { compiledFromSource } from "./compiledFromSource"

/** A Loop's `if:`, parsed and type-checked once, at load. */
export class CelExpression {
  constructor(
    readonly source: string,
    /** The parsed program; call it with the context. */
    readonly program: CelParseResult
  ) {}
}

const environment = new Environment({ unlistedVariablesAreDyn: false })
  .registerVariable("item", "dyn")
  .registerVariable("repository", "string")

interface CelError {
  readonly message: string
  readonly range?: { readonly start: number } | undefined
}

/** The first line of a CEL error, with where in the expression it is. */
export const describeCelError = (error: CelError): string => {
  const first = error.message.split("\n")[0] ?? error.message
  return error.range === undefined ? first : `${first} (at character ${error.range.start + 1} of the expression)`
}

/** Parses and type-checks an `if:` expression; it must produce a boolean. */
export const compileCel = (source: string): Either.Either<CelExpression, string> => {
  let program: CelParseResult
  try {
    program = environment.parse(source)
  } catch (error) {
    return Either.left(`invalid CEL expression: ${describeCelError(error as CelError)}`)
  }
  const checked = program.check()
  if (!checked.valid) {
    return Either.left(`invalid CEL expression: ${checked.error ? describeCelError(checked.error) : "type check failed"}`)
  }
  if (checked.type !== "bool" && checked.type !== "dyn") {
    return Either.left(`the expression gives ${checked.type}, but \`if:\` needs a boolean`)
  }
  return Either.right(new CelExpression(source, program))
}

/** A string in the file, a compiled expression in the config. */
export const CelExpressionFromString = compiledFromSource(
  "a CEL expression",
  (input): input is CelExpression => input instanceof CelExpression,
  compileCel
)
