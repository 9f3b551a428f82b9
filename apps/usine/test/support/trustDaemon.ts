import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import type { StartedSim } from "@usine/github-sim/startSim"
import { queryLedger } from "../resilience/support/LedgerSnapshot"
import { daemonConfig, REPOSITORY, SAMPLE_REPOSITORY } from "./daemonConfig"
import { freePort } from "./freePort"
import { botAndRepository } from "./scopedSim"
import { startUsine } from "./UsineProcess"

const LABELS = "labels:\n  - {name: ready-for-agent, color: \"0e8a16\"}"
const PROMPT = '{{ item.title | untrusted: "issue title" }}\n{{ item.body | untrusted: "issue body" }}{% for c in item.comments %}\n{{ c.body | untrusted: c.author }}{% endfor %}'

/** A Loop on `ready-for-agent` issues whose prompt fences the title, the body and the comments it may read. */
const fencedLoop = (approval: "required" | "none") => `
  - name: triage
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: ${JSON.stringify(PROMPT)}
    agent: keeper
    approval: ${approval}`

/**
 * A `command` Agent that copies the prompt file usine wrote for it into `prompts/`, then waits for `release` before
 * it fails (exit 3, so nothing is pushed and nothing retried). Its Worker runs it unsandboxed, so it can write there.
 */
const keeperAgent = (dir: string) => {
  // Copied under a hidden name, then renamed: a test reading the folder never sees a prompt half copied.
  const script = `t=$(mktemp '${dir}/prompts/.copy-XXXXXX'); cp "$USINE_PROMPT_FILE" "$t"; mv "$t" "${dir}/prompts/prompt-$(date +%s%N)-$$"; ` +
    `while [ ! -e '${dir}/release' ]; do sleep 0.2; done; exit 3`
  return `agents:\n  keeper:\n    harness: command\n    command: [sh, -c, ${JSON.stringify(script)}]\n`
}

/** The emulator's accounts: the daemon's bot, a collaborator with write access, and an outsider who can only read. */
export const people = (sim: StartedSim) =>
  Effect.gen(function* () {
    const token = yield* botAndRepository(sim, { seedDirectory: SAMPLE_REPOSITORY })
    yield* Effect.promise(() => sim.control.createUser({ login: "writer", permission: "write" }))
    yield* Effect.promise(() => sim.control.createUser({ login: "outsider", permission: "read" }))
    return token
  })

/** Starts `usine up` on the emulator with the keeper Agent; the Board's URL. */
export const up = (dir: string, sim: StartedSim, token: string, approval: "required" | "none") =>
  Effect.gen(function* () {
    mkdirSync(join(dir, "prompts"), { recursive: true })
    const config = daemonConfig({
      apiUrl: sim.url,
      token,
      boardPort: yield* freePort,
      workspaces: join(dir, "workspaces"),
      extra: LABELS,
      loops: [fencedLoop(approval)]
    })
      .replace("agents:\n", keeperAgent(dir))
      .replace("workers:\n  local:\n", "workers:\n  local:\n    sandbox: none\n")
    writeFileSync(join(dir, "usine.yaml"), config)
    const usine = yield* startUsine(dir, ["up"])
    const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
    return { usine, url }
  })

/** The prompt files the keeper Agent copied, one per Attempt that started. */
export const prompts = (dir: string): ReadonlyArray<string> =>
  readdirSync(join(dir, "prompts")).filter((name) => name.startsWith("prompt-")).sort().map((name) => readFileSync(join(dir, "prompts", name), "utf8"))

export const label = (sim: StartedSim, number: number, actor: string) =>
  Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number, labels: ["ready-for-agent"], actor }))

export const comment = (sim: StartedSim, number: number, author: string, body: string) =>
  Effect.promise(() => sim.control.addComment({ repo: REPOSITORY, number, author, body }))

/** The Runs as the ledger holds them, and how many Events it recorded. */
export const ledger = (dir: string) => {
  const file = join(dir, "state", "ledger.db")
  return {
    runs: queryLedger(file, "SELECT id, number, state, version FROM usine_runs ORDER BY number, created_at"),
    events: queryLedger(file, "SELECT count(*) AS n FROM usine_events")[0]?.["n"]
  }
}
