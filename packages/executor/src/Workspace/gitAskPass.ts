import { Effect, Redacted, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path/posix"
import { currentToken, type GitHubCredential } from "@usine/github/GitHubCredential"
import { shellQuote } from "../shellQuote"
import { HostOperationFailed, type TransportError, type WorkerTransportShape } from "../WorkerTransport"

/** `scheme://host[:port]` of a GitHub URL: the only origin the lent token is given to. */
const originOf = (url: string): string => {
  const parsed = new URL(url)
  return `${parsed.protocol}//${parsed.host}`
}

/**
 * The askpass program answers git's two prompts for the configured origin only, as git words them
 * (`Username for 'https://github.com': `, `Password for 'https://x-access-token@github.com': `); any other prompt,
 * a redirect or an `insteadOf` to another host, gets nothing and an exit status git treats as a refusal.
 */
const script = (origin: string): string => {
  const { protocol, host } = new URL(origin)
  const username = `Username for '${origin}': `
  const password = `Password for '${protocol}//x-access-token@${host}': `
  return `#!/bin/sh
case "$1" in
  ${shellQuote(username)}) printf '%s\\n' x-access-token ;;
  ${shellQuote(password)}) command -p cat "$(command -p dirname "$0")/token" ;;
  *) exit 1 ;;
esac
`
}

/**
 * Lends a token to git for one scope through `GIT_ASKPASS` (ADR 0016, ADR 0053): the token sits in a file only its
 * owner reads, under the Worker root, until the scope closes. It is never in argv (visible in `ps`), never in the
 * environment of the command, never in any git config, and answered only for `url`'s origin. A GitHub App's token is
 * the current one when the scope opens (each git command opens its own), so a long Run pushes with a fresh token.
 */
export const gitAskPass = (
  transport: WorkerTransportShape,
  root: string,
  token: GitHubCredential,
  url: string
): Effect.Effect<Readonly<Record<string, string>>, TransportError, Scope.Scope> =>
  Effect.gen(function* () {
    const dir = path.join(root, "credentials", randomBytes(12).toString("hex"))
    yield* Effect.acquireRelease(transport.makeDirectory(dir), () => transport.remove(dir).pipe(Effect.ignore))
    const lent = yield* currentToken(token).pipe(
      Effect.mapError((error) => new HostOperationFailed({ host: transport.host, operation: "lend the GitHub token", detail: error.message }))
    )
    yield* transport.writeFile(path.join(dir, "token"), `${Redacted.value(lent)}\n`, { mode: 0o600 })
    yield* transport.writeFile(path.join(dir, "askpass"), script(originOf(url)), { mode: 0o700 })
    return { GIT_ASKPASS: path.join(dir, "askpass") }
  })
