import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"

/** A valid usine.yaml that sets every key once; each line is named by the key path it sets. */
const BASE: ReadonlyArray<readonly [string, string]> = [
  ["github", "github:"],
  ["github.token", "  token: ghp_test"],
  ["github.token_file", "  token_file: ~/.config/usine/token"],
  ["github.api_url", "  api_url: https://api.github.com"],
  ["github.webhook_secret", "  webhook_secret: a-webhook-secret"],
  ["repositories", "repositories: [acme/widgets]"],
  ["poll_interval", "poll_interval: 30s"],
  ["ledger", "ledger: .usine/ledger.db"],
  ["labels", "labels:"],
  ["labels[0].name", "  - name: ready"],
  ["labels[0].color", '    color: "0e8a16"'],
  ["labels[0].description", "    description: ready for an agent"],
  ["board", "board:"],
  ["board.listen", "  listen: 127.0.0.1:8787"],
  ["board.host_name", "  host_name: usine.example.com"],
  ["board.token", "  token: board-secret-0123456789abcdef-0123456789"],
  ["board.columns", "  columns:"],
  ["board.columns[0].name", "    - name: Ready"],
  ["board.columns[0].label", "      label: ready"],
  ["budget", "budget:"],
  ["budget.daily_tokens", "  daily_tokens: 1000000"],
  ["budget.daily_cost_usd", "  daily_cost_usd: 20"],
  ["notify", "notify:"],
  ["notify[0].type", "  - type: webhook"],
  ["notify[0].url", "    url: https://hooks.example.com/usine"],
  ["notify[0].events", "    events: [approval_needed, failed]"],
  ["notify[0].secret", "    secret: signing-secret"],
  ["agents", "agents:"],
  ["agents.codex", "  codex:"],
  ["agents.codex.harness", "    harness: codex"],
  ["agents.codex.model", "    model: gpt-5-codex"],
  ["agents.codex.command", "    command: [codex]"],
  ["agents.codex.env", "    env: [OPENAI_API_KEY]"],
  ["agents.codex.network", "    network: [api.github.com:443]"],
  ["agents.codex.sandbox_read_only", "    sandbox_read_only: [~/.gitconfig]"],
  ["workers", "workers:"],
  ["workers.local", "  local:"],
  ["workers.local.type", "    type: local"],
  ["workers.local.max_concurrent_attempts", "    max_concurrent_attempts: 2"],
  ["workers.local.root", "    root: ~/.usine/workspaces"],
  ["workers.local.agents", "    agents: [codex]"],
  ["workers.local.sandbox", "    sandbox: bubblewrap"],
  ["workers.local.sandbox_uid", "    sandbox_uid: 65534"],
  ["workers.local.limits", "    limits:"],
  ["workers.local.limits.memory", "      memory: 4GiB"],
  ["workers.local.limits.processes", "      processes: 512"],
  ["workers.local.limits.cpu_seconds", "      cpu_seconds: 3600"],
  ["workers.local.limits.tmp", "      tmp: 1GiB"],
  ["workers.local.limits.home", "      home: 1GiB"],
  ["workers.local.limits.disk", "      disk: 10GiB"],
  ["loops", "loops:"],
  ["loops[0].name", "  - name: fix"],
  ["loops[0].on", "    on: issues"],
  ["loops[0].repositories", "    repositories: [acme/*]"],
  ["loops[0].if", "    if: '\"ready\" in item.labels'"],
  ["loops[0].prompt", "    prompt: 'Fix {{ item.title }}'"],
  ["loops[0].agent", "    agent: codex"],
  ["loops[0].approval", "    approval: required"],
  ["loops[0].max_cycles", "    max_cycles: 3"],
  ["loops[0].max_attempt_minutes", "    max_attempt_minutes: 60"],
  ["loops[0].verify", "    verify: [pnpm test]"],
  ["loops[0].verify_rounds", "    verify_rounds: 2"],
  ["loops[0].network", "    network: [registry.npmjs.org:443]"],
  ["loops[0].forbidden_paths", "    forbidden_paths: [.github/**]"],
  ["loops[0].max_changed_files", "    max_changed_files: 40"],
  ["loops[0].stall_minutes", "    stall_minutes: 15"],
  ["loops[0].approval_timeout", "    approval_timeout: 1440"],
  ["loops[0].workers", "    workers: [local]"],
  ["loops[0].budget", "    budget:"],
  ["loops[0].budget.run_tokens", "      run_tokens: 200000"],
  ["loops[0].budget.run_cost_usd", "      run_cost_usd: 2.5"],
  ["loops[0].budget.daily_tokens", "      daily_tokens: 900000"],
  ["loops[0].budget.daily_cost_usd", "      daily_cost_usd: 10"],
  ["loops[0].max_no_progress", "    max_no_progress: 2"],
  ["loops[0].max_open_pull_requests", "    max_open_pull_requests: 5"],
  ["loops[0].retry_backoff", "    retry_backoff: [1m, 4m]"],
  ["loops[0].trust", "    trust: collaborators"],
  ["loops[0].trusted_authors", "    trusted_authors: [ada]"],
  ["loops[1].name", "  - name: nightly"],
  ["loops[1].on", "    on: schedule"],
  ["loops[1].cron", "    cron: '0 3 * * 1-5'"],
  ["loops[1].tz", "    tz: Europe/Paris"],
  ["loops[1].prompt", "    prompt: 'Tidy {{ repository }}'"],
  ["loops[1].agent", "    agent: codex"]
]

/** Each key (sections aside) given a value of the wrong type, or an impossible one: the new text of its line. */
const WRONG: ReadonlyArray<readonly [string, string]> = [
  ["github.token", "  token: [a, b]"],
  ["github.token_file", "  token_file: ''"],
  ["github.api_url", "  api_url: ftp://example.com"],
  ["github.webhook_secret", "  webhook_secret: {a: 1}"],
  ["repositories", "repositories: []"],
  ["poll_interval", "poll_interval: true"],
  ["ledger", "ledger: ''"],
  ["labels[0].name", "  - name: [ready]"],
  ["labels[0].color", "    color: green"],
  ["labels[0].description", "    description: {text: no}"],
  ["board.listen", "  listen: nowhere"],
  ["board.host_name", "  host_name: ''"],
  ["board.token", "  token: {a: 1}"],
  ["board.columns[0].name", "    - name: ''"],
  ["board.columns[0].label", "      label: [ready]"],
  ["budget.daily_tokens", "  daily_tokens: lots"],
  ["budget.daily_cost_usd", "  daily_cost_usd: -1"],
  ["notify[0].type", "  - type: email"],
  ["notify[0].url", "    url: ftp://hooks.example.com"],
  ["notify[0].events", "    events: [merged]"],
  ["notify[0].secret", "    secret: [a]"],
  ["agents.codex.harness", "    harness: gpt"],
  ["agents.codex.model", "    model: ''"],
  ["agents.codex.command", "    command: 5"],
  ["agents.codex.env", "    env: 3"],
  ["agents.codex.network", "    network: [api.github.com]"],
  ["agents.codex.sandbox_read_only", "    sandbox_read_only: ['']"],
  ["workers.local.type", "    type: cloud"],
  ["workers.local.max_concurrent_attempts", "    max_concurrent_attempts: 0"],
  ["workers.local.root", "    root: ''"],
  ["workers.local.agents", "    agents: codex"],
  ["workers.local.sandbox", "    sandbox: docker"],
  ["workers.local.sandbox_uid", "    sandbox_uid: 0"],
  ["workers.local.limits.memory", "      memory: lots"],
  ["workers.local.limits.processes", "      processes: 0"],
  ["workers.local.limits.cpu_seconds", "      cpu_seconds: 1.5"],
  ["workers.local.limits.tmp", "      tmp: -1G"],
  ["workers.local.limits.home", "      home: 12 parsecs"],
  ["workers.local.limits.disk", "      disk: 0"],
  ["loops[0].name", "  - name: Fix Me"],
  ["loops[0].on", "    on: push"],
  ["loops[0].repositories", "    repositories: acme/*"],
  ["loops[0].if", "    if: 'item.labels.size() >'"],
  ["loops[0].prompt", "    prompt: '{{ item.title | shout }}'"],
  ["loops[0].agent", "    agent: Codex"],
  ["loops[0].approval", "    approval: maybe"],
  ["loops[0].max_cycles", "    max_cycles: 0"],
  ["loops[0].max_attempt_minutes", "    max_attempt_minutes: -5"],
  ["loops[0].verify", "    verify: pnpm test"],
  ["loops[0].verify_rounds", "    verify_rounds: -1"],
  ["loops[0].network", "    network: ['https://registry.npmjs.org']"],
  ["loops[0].forbidden_paths", "    forbidden_paths: 5"],
  ["loops[0].max_changed_files", "    max_changed_files: 1.5"],
  ["loops[0].stall_minutes", "    stall_minutes: soon"],
  ["loops[0].approval_timeout", "    approval_timeout: 0"],
  ["loops[0].workers", "    workers: local"],
  ["loops[0].budget.run_tokens", "      run_tokens: -1"],
  ["loops[0].budget.run_cost_usd", "      run_cost_usd: $5"],
  ["loops[0].budget.daily_tokens", "      daily_tokens: 0"],
  ["loops[0].budget.daily_cost_usd", "      daily_cost_usd: free"],
  ["loops[0].max_no_progress", "    max_no_progress: -1"],
  ["loops[0].retry_backoff", "    retry_backoff: [soon]"],
  ["loops[0].max_open_pull_requests", "    max_open_pull_requests: 0"],
  ["loops[0].trust", "    trust: everyone"],
  ["loops[0].trusted_authors", "    trusted_authors: ada"],
  ["loops[1].cron", "    cron: '61 * * * *'"],
  ["loops[1].tz", "    tz: Mars/Olympus_Mons"]
]

const fileWith = (key: string, line: string) => BASE.map(([k, text]) => (k === key ? line : text)).join("\n") + "\n"

describe("resilience: every usine.yaml key with a wrong value", () => {
  it.effect("the base file sets every key and is valid", () => Effect.asVoid(parseConfig(fileWith("", ""), { env: {} })))

  it.effect("each wrong value is refused with a problem at its key and line, as file:line:column", () =>
    Effect.gen(function* () {
      const failures: Array<string> = []
      for (const [key, line] of WRONG) {
        const exit = yield* Effect.exit(parseConfig(fileWith(key, line), { env: {}, file: "usine.yaml" }))
        if (Exit.isSuccess(exit)) {
          failures.push(`${key}: accepted ${JSON.stringify(line.trim())}`)
          continue
        }
        const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        const problems = error?.problems ?? []
        const expectedLine = BASE.findIndex(([k]) => k === key) + 1
        const at = problems.filter((p) => p.path === key || p.path.startsWith(`${key}[`) || p.path.startsWith(`${key}.`))
        if (at.length === 0) failures.push(`${key}: no problem names it; got ${error?.message ?? "a defect"}`)
        else if (at[0]?.line !== expectedLine) failures.push(`${key}: placed on line ${at[0]?.line}, not ${expectedLine}`)
        else if (!/^usine\.yaml:\d+:\d+ /.test(error?.message ?? "")) failures.push(`${key}: the message does not start with file:line:column`)
      }
      assert.deepStrictEqual(failures, [], `${WRONG.length} keys given a wrong value`)
    }))
})
