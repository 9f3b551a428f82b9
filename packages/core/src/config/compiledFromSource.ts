import { Either, ParseResult, Schema } from "effect"

/**
 * A string in usine.yaml that is compiled at load (a CEL expression, a Liquid template): decoding runs `compile`
 * and reports its message at the field; encoding gives the source back.
 */
export const compiledFromSource = <A extends { readonly source: string }>(
  description: string,
  isCompiled: (input: unknown) => input is A,
  compile: (source: string) => Either.Either<A, string>
) =>
  Schema.transformOrFail(Schema.String.annotations({ description }), Schema.declare(isCompiled, { description }), {
    strict: true,
    decode: (source, _, ast) =>
      Either.match(compile(source), {
        onLeft: (message) => ParseResult.fail(new ParseResult.Type(ast, source, message)),
        onRight: ParseResult.succeed
      }),
    encode: (compiled) => ParseResult.succeed(compiled.source)
  })
