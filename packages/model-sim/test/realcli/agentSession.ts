import { Effect } from "effect"
import { agentEnvironment } from "@usine/executor/AgentEnvironment"
import type { Harness, HarnessInvocation } from "@usine/executor/harness/Harness"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { type ModelScript } from "../../src/ModelScript"
import { startModelSim } from "../../src/startModelSim"
import { agentCli } from "./agentCli"
import { type CliProcess, type StdinStep, startCli } from "./cliProcess"
import { sampleRepo } from "./sampleRepo"

export const API_KEY = "sim-key-4b1d"

/** The scripted session every CLI runs: see the failing test, fix the code, test and commit, report. */
export const fixGreeting: ModelScript = {
  turns: [
    { run: "node --test", usage: { input: 1200, output: 30 } },
    { edit: "src/greet.mjs", oldText: `"Hello " + name`, newText: "`Hello, ${name}!`", usage: { input: 1500, output: 40 } },
    {
      run: "node --test && git add -A && git commit -qm 'Fix the greeting' && echo committed",
      usage: { input: 1800, output: 25, cached: 1200 }
    },
    { say: "Fixed the greeting in src/greet.mjs; the tests pass and the change is committed.", usage: { input: 2000, output: 20, cached: 1500 } }
  ]
}

/** What `fixGreeting` adds up to, as the harness's last usage row must say. */
export const fixGreetingUsage = { inputTokens: 6500, outputTokens: 115, cachedInputTokens: 2700 }

/**
 * Runs a real agent CLI through the harness's own invocation: a scripted model (or `deadUrl`, an endpoint that
 * refuses connections), a fresh sample repository, the environment the executor would build, a process group
 * killed when the scope closes. `tune` may adjust the invocation (a CLI's documented retry settings, for speed).
 */
export const agentSession = (
  harness: Harness,
  script: ModelScript,
  options: { readonly deadUrl?: string; readonly tune?: (inv: HarnessInvocation) => HarnessInvocation } = {}
) =>
  Effect.gen(function* () {
    const folders = yield* sampleRepo
    const sim = yield* Effect.acquireRelease(
      Effect.promise(() => startModelSim(script)),
      (running) => Effect.promise(() => running.close())
    )
    const binary = agentCli(harness.name === "command" ? "pi" : harness.name)
    const invocation = harness.invocation({
      prompt: "The greeting test fails. Fix it, run the tests and commit.",
      model: undefined,
      workdir: folders.workdir,
      attemptDir: folders.attemptDir,
      command: [binary],
      modelProvider: { baseUrl: options.deadUrl ?? sim.baseUrl, apiKey: API_KEY, model: "sim-model" }
    })
    const inv = options.tune?.(invocation) ?? invocation
    const { env } = agentEnvironment({
      daemonEnv: { PATH: process.env["PATH"], HOME: folders.home },
      config: { grant: [], set: {} },
      harness: inv.env
    })
    const cli = yield* startCli(inv, {
      workdir: folders.workdir,
      attemptDir: folders.attemptDir,
      env,
      ...(harness.channel?._tag === "Stdin" ? { feedStdin: stdinFeeder(harness) } : {})
    })
    return { ...folders, sim, inv, cli, parsed: () => parse(harness, cli) }
  })

/**
 * The session's feeder in small: after each stdout line, the harness's own parser says whether an idle probe is due
 * (written once) or the CLI is idle, waiting for input (its stdin is closed).
 */
const stdinFeeder = (harness: Harness) => {
  const parser = harness.parser()
  const probed = new Set<string>()
  return (line: string): StdinStep | undefined => {
    parser.line(line, 0)
    if (parser.idle?.() === true) return { _tag: "Close" }
    const probe = parser.idleProbe?.()
    if (probe === undefined || probed.has(probe.id)) return undefined
    probed.add(probe.id)
    return { _tag: "Write", input: probe.line }
  }
}

/** The transcript rows the harness's parser makes of everything printed so far, and the parser itself. */
const parse = (harness: Harness, cli: CliProcess) => {
  const parser = harness.parser()
  const rows: ReadonlyArray<TranscriptEntry> = cli.lines.flatMap((line) => parser.line(line.text, line.at))
  return { rows, parser }
}

/** A port on 127.0.0.1 that was just free: connecting to it is refused. */
export const deadEndpoint = Effect.promise(async () => {
  const { createServer } = await import("node:net")
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}/v1`
})
