import { Effect, Either, Schema } from "effect"
import { formatPath } from "@usine/core/config/ConfigIssue"
import { issuesOfParseIssue } from "@usine/core/config/issuesOfParseIssue"

/** A request field is missing or malformed (the board answers 400 naming it). */
class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", { field: Schema.String, detail: Schema.String }) {
  override get message() {
    return `${this.field}: ${this.detail}`
  }
}

/**
 * Validates at the edge with the request's Schema; the first problem names its field, worded as a usine.yaml problem
 * is (`expected a positive whole number, got "0"`). Fields the Schema does not name are dropped.
 */
export const parseInput = <A, I>(schema: Schema.Schema<A, I>, data: unknown): Effect.Effect<A, InvalidInput> =>
  Either.match(Schema.decodeUnknownEither(schema)(data), {
    onRight: Effect.succeed,
    onLeft: (error) => {
      const issue = issuesOfParseIssue(error.issue)[0]
      const field = issue === undefined ? "" : formatPath(issue.path)
      return Effect.fail(new InvalidInput({ field: field === "" ? "request" : field, detail: issue?.message ?? "invalid" }))
    }
  })
