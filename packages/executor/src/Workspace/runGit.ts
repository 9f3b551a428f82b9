import { Effect } from "effect"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import { GitCommandFailed } from "./errors"

/** Git never asks a terminal, and no credential helper of the host's user ever stores a lent token. */
const fixedArgs = ["-c", "credential.helper=", "-c", "core.hooksPath=/dev/null"]

/** Runs `git <args>` on the Worker's host; a non-zero exit is a `GitCommandFailed` carrying stderr. */
export const runGit = (
  transport: WorkerTransportShape,
  args: ReadonlyArray<string>,
  options: { readonly env?: Readonly<Record<string, string>>; readonly timeoutMs?: number } = {}
): Effect.Effect<string, TransportError | GitCommandFailed> =>
  transport
    .exec({
      argv: ["git", ...fixedArgs, ...args],
      env: { GIT_TERMINAL_PROMPT: "0", ...options.env },
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs })
    })
    .pipe(
      Effect.filterOrFail(
        (result) => result.exitCode === 0,
        (result) =>
          new GitCommandFailed({ command: `git ${args.slice(0, 3).join(" ")}`, exitCode: result.exitCode, stderr: result.stderr })
      ),
      Effect.map((result) => result.stdout)
    )
