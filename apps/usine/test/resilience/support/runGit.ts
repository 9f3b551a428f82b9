import { execFile } from "node:child_process"
import { Effect } from "effect"

/**
 * git as a child process that does not block the event loop: the emulator answering it runs in this same process,
 * so a synchronous call would wait on itself forever.
 */
export const runGit = (cwd: string, ...args: ReadonlyArray<string>) =>
  Effect.async<string, Error>((resume) => {
    const child = execFile("git", ["-c", "user.name=resilience test", "-c", "user.email=test@usine.invalid", ...args], { cwd, encoding: "utf8" }, (error, stdout, stderr) =>
      resume(error === null ? Effect.succeed(stdout) : Effect.fail(new Error(`git ${args.join(" ")}: ${stderr}`)))
    )
    return Effect.sync(() => void child.kill())
  })
