import { Effect, Redacted, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path/posix"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"

const script = `#!/bin/sh
case "$1" in
  Username*) printf '%s\\n' x-access-token ;;
  *) cat "$(dirname "$0")/token" ;;
esac
`

/**
 * Lends a token to git for one scope through `GIT_ASKPASS` (ADR 0016): the token sits in a file only its owner
 * reads, under the Worker root, until the scope closes. It is never in argv (visible in `ps`), never in the
 * environment of the command, and never in the mirror's config.
 */
export const gitAskPass = (
  transport: WorkerTransportShape,
  root: string,
  token: Redacted.Redacted<string>
): Effect.Effect<Readonly<Record<string, string>>, TransportError, Scope.Scope> =>
  Effect.gen(function* () {
    const dir = path.join(root, "credentials", randomBytes(12).toString("hex"))
    yield* Effect.acquireRelease(transport.makeDirectory(dir), () => transport.remove(dir).pipe(Effect.ignore))
    yield* transport.writeFile(path.join(dir, "token"), `${Redacted.value(token)}\n`, { mode: 0o600 })
    yield* transport.writeFile(path.join(dir, "askpass"), script, { mode: 0o700 })
    return { GIT_ASKPASS: path.join(dir, "askpass") }
  })
