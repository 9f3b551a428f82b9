import { Data } from "effect"

const DOCS = "https://docs.github.com/rest"

/** One entry of a 422 `errors` array, as GitHub reports it. */
interface FieldError {
  readonly resource: string
  readonly field?: string
  readonly code: string
  readonly message?: string
}

/** The resource does not exist, or the caller may not see it (GitHub answers 404 for both). */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly resource: string }> {
  readonly status = 404
  override get message() {
    return "Not Found"
  }
}

/** No token, or a token no user holds. */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{ readonly reason: "missing" | "bad" }> {
  readonly status = 401
  override get message() {
    return this.reason === "missing" ? "Requires authentication" : "Bad credentials"
  }
}

/** The caller's role on the repository is too weak for the action. */
export class Forbidden extends Data.TaggedError("Forbidden")<{ readonly action: string }> {
  readonly status = 403
  override get message() {
    return "Resource not accessible by personal access token"
  }
}

/** The request is well-formed but GitHub would refuse it (422 Validation Failed). */
export class Unprocessable extends Data.TaggedError("Unprocessable")<{
  readonly errors: ReadonlyArray<FieldError>
  readonly summary?: string
}> {
  readonly status = 422
  override get message() {
    return this.summary ?? "Validation Failed"
  }
}

/** The request body or query could not be read (400). */
export class BadRequest extends Data.TaggedError("BadRequest")<{ readonly problem: string }> {
  readonly status = 400
  override get message() {
    return this.problem
  }
}

export type ApiError = NotFound | Unauthorized | Forbidden | Unprocessable | BadRequest

/** GitHub's error body for an API error. */
export const errorBody = (error: ApiError): Record<string, unknown> => ({
  message: error.message,
  ...(error._tag === "Unprocessable" ? { errors: error.errors } : {}),
  documentation_url: DOCS,
  status: String(error.status)
})
