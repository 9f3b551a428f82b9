import { Clock, Effect } from "effect"
import * as path from "node:path/posix"
import { messageFile } from "../Intervention"
import { HostOperationFailed, type WorkerTransportShape } from "../WorkerTransport"

/**
 * A line for the CLI's stdin, with its id, as a message file of the session's inbox (ADR 0062): written under a dot
 * name, then renamed whole, so the feeder never takes half of it.
 */
export const feedLine = (transport: WorkerTransportShape, inbox: string, message: { readonly id: string; readonly line: string }) =>
  Effect.gen(function* () {
    const file = messageFile(yield* Clock.currentTimeMillis, message.id)
    const staged = path.join(inbox, `.${file}.tmp`)
    yield* transport.writeFile(staged, message.line, { mode: 0o600 })
    const moved = yield* transport.exec({ argv: ["mv", "-f", staged, path.join(inbox, file)], timeoutMs: 30_000 })
    if (moved.exitCode !== 0) {
      return yield* new HostOperationFailed({ host: transport.host, operation: `mv ${staged}`, detail: moved.stderr.trim() })
    }
  })
