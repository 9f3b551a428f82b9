import { FileSystem } from "@effect/platform"
import { Data, Effect } from "effect"
import type { ConfigInvalid } from "@usine/core/config/ConfigInvalid"
import { parseConfig } from "@usine/core/config/parseConfig"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { daemonEnvironment } from "./daemon/DaemonEnvironment"

/** The configuration file could not be read at all. */
class ConfigUnreadable extends Data.TaggedError("ConfigUnreadable")<{
  readonly file: string
  readonly reason: string
}> {
  override get message() {
    return `${this.file}: cannot read the file: ${this.reason}`
  }
}

/** Reads a usine.yaml and parses it against the process environment. */
export const loadConfig = Effect.fn("loadConfig")(function* (
  file: string
): Effect.fn.Return<UsineConfig, ConfigUnreadable | ConfigInvalid, FileSystem.FileSystem> {
  const fs = yield* FileSystem.FileSystem
  const text = yield* fs
    .readFileString(file)
    .pipe(
      Effect.mapError(
        (error) =>
          new ConfigUnreadable({
            file,
            reason: error._tag === "SystemError" && error.reason === "NotFound" ? "no such file" : error.message
          })
      )
    )
  const env = yield* Effect.sync(() => ({ ...daemonEnvironment() }))
  return yield* parseConfig(text, { env, file })
})
