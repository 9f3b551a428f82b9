import { Data, Effect } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { probeSandbox, SandboxUnavailable } from "./Sandbox"
import type { TransportError, WorkerTransportShape } from "./WorkerTransport"

/** A command whose success shows a capability, such as a harness CLI reporting that it is logged in. */
interface CapabilityCheck {
  readonly name: string
  readonly argv: ReadonlyArray<string>
  /** What the operator should do when the check fails. */
  readonly remedy: string
}

interface WorkerCapabilities {
  readonly host: string
  /** Binaries found on the host's PATH. */
  readonly present: ReadonlyArray<string>
  /** One line per missing binary or failed check, each saying what to do. */
  readonly missing: ReadonlyArray<string>
}

/** A Worker whose host has no `/proc`: its sessions could be neither told apart nor stopped (ADR 0014). */
export class WorkerNotLinux extends Data.TaggedError("WorkerNotLinux")<{
  readonly worker: string
  readonly host: string
}> {
  override get message() {
    return `the Worker ${this.worker} (${this.host}) has no /proc: usine runs agents on Linux Workers only (ADR 0014)`
  }
}

const procReadable = (procRoot: string) => ["sh", "-c", 'test -r "$1/self/stat"', "sh", procRoot]

const NO_PROC = "usine:no-proc"

const noProc = (host: string) => `${host} has no /proc: usine runs agents on Linux Workers only (ADR 0014)`

/** Fails with `WorkerNotLinux` when the host has no `/proc`; `procRoot` is for tests. */
export const requireProc = Effect.fn("requireProc")(function* (
  transport: WorkerTransportShape,
  worker: string,
  procRoot = "/proc"
): Effect.fn.Return<void, WorkerNotLinux | TransportError> {
  const result = yield* transport.exec({ argv: procReadable(procRoot), timeoutMs: 30_000 })
  if (result.exitCode !== 0) return yield* new WorkerNotLinux({ worker, host: transport.host })
})

/**
 * What a Worker can do, checked when an Attempt is prepared: `/proc` (Linux), the binaries (git, the harness CLI), a
 * working sandbox unless the Worker says `sandbox: none`, and the harness's own checks (logged in). Unreachable hosts fail with the transport's error, not with a capability.
 */
export const probeWorker = Effect.fn("probeWorker")(function* (
  transport: WorkerTransportShape,
  request: {
    readonly binaries: ReadonlyArray<string>
    readonly checks?: ReadonlyArray<CapabilityCheck>
    /** Where the host's procfs is looked for; `/proc` but in tests. */
    readonly procRoot?: string
    /** Checks that the sandbox works there (ADR 0054), for the Worker of this name. */
    readonly sandbox?: { readonly worker: string } | undefined
  }
): Effect.fn.Return<WorkerCapabilities, TransportError> {
  // One round trip for the binaries and /proc: each ssh command costs a connection's latency. The sandbox's trial
  // run is independent of it and runs at the same time.
  const binaries = transport.exec({
    argv: [
      "sh",
      "-c",
      `p=$1; shift; for b; do command -v "$b" >/dev/null 2>&1 && echo "$b"; done; [ -r "$p/self/stat" ] || echo ${NO_PROC}; exit 0`,
      "sh",
      request.procRoot ?? "/proc",
      ...request.binaries
    ],
    timeoutMs: 30_000
  })
  const [found, unavailable] = yield* Effect.all(
    [binaries, request.sandbox === undefined ? Effect.succeed(undefined) : probeSandbox(transport)],
    { concurrency: 2 }
  )
  const lines = found.stdout.split("\n").filter((line) => line !== "")
  const present = lines.filter((line) => line !== NO_PROC)
  const proc = { exitCode: lines.includes(NO_PROC) ? 1 : 0 }
  const missing = [
    ...(proc.exitCode === 0 ? [] : [noProc(transport.host)]),
    ...request.binaries
      .filter((binary) => !present.includes(binary))
      .map((binary) => `${binary} is not installed or not on PATH on ${transport.host}`)
  ]
  if (request.sandbox !== undefined && unavailable !== undefined) {
    missing.push(new SandboxUnavailable({ worker: request.sandbox.worker, host: transport.host, detail: unavailable }).message)
  }
  for (const check of request.checks ?? []) {
    // A check whose program cannot start locally fails like one that exits 127 on a shell host.
    const result = yield* transport
      .exec({ argv: check.argv, timeoutMs: 30_000 })
      .pipe(
        Effect.catchTag("HostOperationFailed", (error) => Effect.succeed({ exitCode: 127, stdout: "", stderr: error.detail }))
      )
    if (result.exitCode !== 0) {
      const said = (result.stderr || result.stdout).trim().split("\n").slice(-1)[0] ?? ""
      missing.push(`${check.name} failed on ${transport.host}: ${check.remedy}${said === "" ? "" : ` (${said})`}`)
    }
  }
  return { host: transport.host, present, missing }
})

/** The AgentFailure for a Worker that lacks something: the Run waits for the operator rather than retrying. */
export const missingCapabilityFailure = (capabilities: WorkerCapabilities): AgentFailure | undefined =>
  capabilities.missing.length === 0
    ? undefined
    : new AgentFailure({
        reason: capabilities.missing[0] ?? "",
        evidence: capabilities.missing.join("\n")
      })
