import { parse, validate } from "graphql"
import { githubSchema } from "../../src/graphql/githubSchema"

/** The reasons GitHub would reject `document` before running it (syntax or schema validation); empty when valid. */
export const validateQuery = (document: string): ReadonlyArray<string> => {
  let ast
  try {
    ast = parse(document)
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)]
  }
  return validate(githubSchema(), ast).map((error) => error.message)
}
