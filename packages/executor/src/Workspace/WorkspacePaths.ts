import { Effect, Either } from "effect"
import { createHash } from "node:crypto"
import * as path from "node:path/posix"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import { UnsafeWorkspacePath } from "./WorkspaceFailures"

const canonicalId = /^[A-Za-z0-9.-]+(\/[A-Za-z0-9.-]+)*$/
const nameSegment = /^[A-Za-z0-9._-]+$/

/**
 * Turns an Attempt id into one folder name of `[A-Za-z0-9._-]`. Ids of the canonical shape map one to one
 * (`/` becomes `_`); any other id gets a hash suffix so two ids never share a folder. An id with an empty,
 * `.` or `..` segment is refused outright: it is an attempt to climb out, not a name.
 */
export const attemptFolderName = (attemptId: string): Either.Either<string, UnsafeWorkspacePath> => {
  const segments = attemptId.split("/")
  if (segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    return Either.left(new UnsafeWorkspacePath({ path: attemptId, reason: "empty, . or .. segment" }))
  }
  const mapped = segments.map((segment) => segment.replace(/[^A-Za-z0-9._-]/g, "_")).join("_")
  if (canonicalId.test(attemptId)) return Either.right(mapped)
  return Either.right(`${mapped}-${createHash("sha256").update(attemptId).digest("hex").slice(0, 12)}`)
}

/** `owner__name.git` for `owner/name`; GitHub names never hold other characters, so anything else is refused. */
export const mirrorFolderName = (repository: string): Either.Either<string, UnsafeWorkspacePath> => {
  const [owner, name, ...rest] = repository.split("/")
  const valid = (segment: string | undefined): segment is string =>
    segment !== undefined && nameSegment.test(segment) && segment !== "." && segment !== ".."
  if (!valid(owner) || !valid(name) || rest.length > 0) {
    return Either.left(new UnsafeWorkspacePath({ path: repository, reason: "not an owner/name repository" }))
  }
  return Either.right(`${owner}__${name}.git`)
}

/**
 * Resolves `target` on the host and insists it is exactly where the root says it should be: any symbolic link
 * on the way (the root's own excepted) would make the resolved path differ, and is refused.
 */
export const contained = (
  transport: WorkerTransportShape,
  root: string,
  relative: ReadonlyArray<string>
): Effect.Effect<string, TransportError | UnsafeWorkspacePath> =>
  Effect.gen(function* () {
    const realRoot = yield* transport.realPath(root)
    const expected = path.join(realRoot, ...relative)
    if (!expected.startsWith(`${realRoot}/`)) {
      return yield* new UnsafeWorkspacePath({ path: expected, reason: `outside the worker root ${realRoot}` })
    }
    const resolved = yield* transport.realPath(expected)
    if (resolved !== expected) {
      return yield* new UnsafeWorkspacePath({ path: expected, reason: `resolves to ${resolved} through a symbolic link` })
    }
    return expected
  })
