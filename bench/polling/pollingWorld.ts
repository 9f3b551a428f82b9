import { join } from "node:path"
import { Duration, Effect, Layer, Redacted } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { GitHubClient } from "@usine/github/GitHubClient"
import { LoopControl } from "@usine/triggers/LoopControl"
import { PollingTriggers } from "@usine/triggers/PollingTriggers"
import { TriggerConfig } from "@usine/triggers/TriggerConfig"
import { TriggerSink } from "@usine/triggers/TriggerSink"
import * as Sql from "@usine/store/Sql"
import * as SqlItemStore from "@usine/store/SqlItemStore"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import * as SqlTriggerRefusals from "@usine/store/SqlTriggerRefusals"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { runLedger } from "@usine/testkit/runLedger"

export const LOGIN = "usine-bot"
export const TOKEN = "bench-token"
export const POLL_INTERVAL = Duration.seconds(60)

export const repositoryName = (index: number): string => `bench-org/repo-${index}`

/** A usine.yaml as an operator writes it: declared labels (so the label preflight runs) and one issue Loop. */
const config = (repositories: number) => `github:
  token: ${TOKEN}
repositories:
${Array.from({ length: repositories }, (_, i) => `  - ${repositoryName(i)}`).join("\n")}
labels:
  - name: ready-for-agent
    color: "0e8a16"
  - name: agent-working
    color: "fbca04"
agents:
  codex:
    harness: codex
loops:
  - name: start-dev
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Work on {{ item.title }}"
    agent: codex
`

const triggerConfig = (repositories: number) =>
  Layer.effect(
    TriggerConfig,
    Effect.map(parseConfig(config(repositories), { env: {} }), (c) => {
      const settings = { repositories: c.repositories, loops: c.loops, labels: c.labels, pollInterval: POLL_INTERVAL }
      return { current: () => settings }
    })
  )

/** Submissions go straight to the ledger, as the engine's first step does; no Run fibers. */
const ledgerSink = Layer.effect(
  TriggerSink,
  Effect.map(runLedger, (store) => ({
    submit: (submission) => store.recordAndClaim(submission),
    revoke: (loop, itemKey) => Effect.asVoid(store.revoke(loop, itemKey))
  }))
)

const ledger = Layer.unwrapScoped(
  Effect.map(scopedTempDir("usine-bench-polling-"), (dir) =>
    Layer.mergeAll(LoopControl.layerLedger, ledgerSink).pipe(
      Layer.provideMerge(Layer.mergeAll(SqlRunStore.layer, SqlItemStore.layer, SqlTriggerRefusals.layer)),
      Layer.provide(Sql.layerUnlocked(join(dir, "ledger.sqlite")))
    )
  )
)

const client = Layer.unwrapEffect(
  Effect.map(GitHubSim, (sim) => GitHubClient.Default({ token: Redacted.make(TOKEN), apiUrl: sim.url, requestTimeoutMs: 30_000 }))
)

/** PollingTriggers against the emulator on 127.0.0.1, on a real SQLite ledger, for `repositories` repositories. */
export const pollingWorld = (repositories: number) =>
  PollingTriggers.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(ledger, client, triggerConfig(repositories))),
    Layer.provideMerge(GitHubSim.layer())
  )
