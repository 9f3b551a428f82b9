import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import { execFile } from "node:child_process"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { CommandFailed } from "../CommandFailed"
import { initConfig, repositoryOfRemote } from "../init/initConfig"

const originUrl = Effect.async<string | undefined>((resume) => {
  execFile("git", ["remote", "get-url", "origin"], { timeout: 5000 }, (error, stdout) =>
    resume(Effect.succeed(error ? undefined : stdout.trim()))
  )
})

/** `usine init`: a commented usine.yaml for the repository of the current folder; an existing file is never replaced. */
export const init = Command.make(
  "init",
  { path: Options.text("path").pipe(Options.withDescription("where to write it"), Options.withDefault("usine.yaml")) },
  ({ path }) =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      if (yield* fs.exists(path)) {
        yield* Console.error(`usine init: ${path} already exists; remove it or choose another --path`)
        return yield* new CommandFailed({ command: "init" })
      }
      const remote = yield* originUrl
      const found = remote === undefined ? undefined : repositoryOfRemote(remote)
      const target = found ?? { host: "github.com", repository: "owner/name" }
      yield* fs.writeFileString(path, initConfig(target))
      yield* Console.log(
        found === undefined
          ? `wrote ${path}; no GitHub remote named origin here, so edit \`repositories\` (owner/name) first`
          : `wrote ${path} for ${found.repository}`
      )
      yield* Console.log("next: export GITHUB_TOKEN=<token>, `usine check`, then `usine up`")
    }).pipe(
      Effect.catchTags({
        SystemError: (error) =>
          Console.error(`usine init: ${error.message}`).pipe(Effect.zipRight(Effect.fail(new CommandFailed({ command: "init" }))))
      })
    )
).pipe(Command.withDescription("Write a commented usine.yaml for the repository of this folder."))
