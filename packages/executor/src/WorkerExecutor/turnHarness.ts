import { Effect, Option } from "effect"
import * as path from "node:path/posix"
import type { Harness } from "../harness/Harness"
import { harnessFor } from "../harness/harnessFor"
import type { WorkerTransportShape } from "../WorkerTransport"
import { HARNESS_FILE } from "./AttemptContext"

const harnessNames: ReadonlyArray<Harness["name"]> = ["codex", "claude", "pi", "command"]

/** The harness a turn's session was started with; a folder from before it was recorded is a `command` one's. */
export const turnHarness = (transport: WorkerTransportShape, dir: string) =>
  transport.readFile(path.join(dir, HARNESS_FILE)).pipe(
    Effect.map((bytes) => {
      const name = Option.getOrElse(Option.map(bytes, (b) => Buffer.from(b).toString("utf8").trim()), () => "command")
      return harnessFor(harnessNames.find((n) => n === name) ?? "command")
    })
  )
