import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ConfigProblem } from "@usine/core/config/ConfigInvalid"
import { parseConfig } from "@usine/core/config/parseConfig"

/** A valid file; each case below changes one line of it. Line numbers in the cases count from `repositories`. */
const base = [
  "repositories: [acme/widgets]", // 1
  "agents:", // 2
  "  codex: {harness: codex}", // 3
  "workers:", // 4
  "  here: {type: local}", // 5
  "loops:", // 6
  "  - name: fix", // 7
  "    on: issues", // 8
  "    if: '\"bug\" in item.labels'", // 9
  "    prompt: 'Fix {{ item.title }}'", // 10
  "    agent: codex", // 11
  "  - name: nightly", // 12
  "    on: schedule", // 13
  "    cron: '0 3 * * *'", // 14
  "    tz: Europe/Paris", // 15
  "    prompt: 'Tidy {{ repository }}'", // 16
  "    agent: codex" // 17
]

const edit = (changes: Record<number, string>) =>
  base.map((line, index) => changes[index + 1] ?? line).join("\n") + "\n"

const problemsOf = (text: string, env: Record<string, string> = {}) =>
  parseConfig(text, { env, file: "usine.yaml" }).pipe(
    Effect.flip,
    Effect.map((error) => error.problems)
  )

const expectOne = (problems: ReadonlyArray<ConfigProblem>, path: string, line: number, column: number, text: string) => {
  assert.strictEqual(problems.length, 1, problems.map((p) => `${p.path}: ${p.message}`).join("\n"))
  const [problem] = problems
  assert.deepStrictEqual([problem?.path, problem?.line, problem?.column], [path, line, column])
  assert.include(problem?.message, text)
}

describe("ConfigInvalid", () => {
  it.effect("the base file is valid", () => Effect.asVoid(parseConfig(edit({}), { env: {} })))

  const cases: ReadonlyArray<readonly [string, Record<number, string>, string, number, number, string]> = [
    ["bad CEL", { 9: "    if: 'item.labels.size() >'" }, "loops[0].if", 9, 9, "invalid CEL expression"],
    ["CEL reading an unknown variable", { 9: "    if: 'itme.labels.size() > 0'" }, "loops[0].if", 9, 9, "Unknown variable: itme"],
    ["CEL that is not a boolean", { 9: "    if: 'item.number + 1'" }, "loops[0].if", 9, 9, "needs a boolean"],
    ["bad Liquid", { 10: "    prompt: '{{ item.title | shout }}'" }, "loops[0].prompt", 10, 13, "undefined filter: shout"],
    ["Liquid reading an unknown variable", { 10: "    prompt: '{{ issue.title }}'" }, "loops[0].prompt", 10, 13, "`issue`"],
    ["bad cron", { 14: "    cron: '0 25 * * *'" }, "loops[1].cron", 14, 11, "invalid cron pattern"],
    ["cron with six fields", { 14: "    cron: '0 0 3 * * *'" }, "loops[1].cron", 14, 11, "invalid cron pattern"],
    ["bad tz", { 15: "    tz: Europe/Atlantis" }, "loops[1].tz", 15, 9, 'unknown time zone "Europe/Atlantis"'],
    ["unknown key", { 11: "    agent: codex\n    retries: 2" }, "loops[0].retries", 12, 5, "unknown key `retries`"],
    ["misspelt key", { 11: "    agent: codex\n    max_cycle: 2" }, "loops[0].max_cycle", 12, 5, "did you mean `max_cycles`?"],
    ["wrong type", { 11: "    agent: codex\n    max_cycles: three" }, "loops[0].max_cycles", 12, 17, 'expected a positive whole number, got "three"'],
    ["wrong literal", { 8: "    on: issue" }, "loops[0].on", 8, 9, 'expected one of "issues", "pull_requests", "schedule", got "issue"'],
    ["missing agent reference", { 11: "    agent: claude" }, "loops[0].agent", 11, 12, "unknown agent `claude`; declared: `codex`"],
    ["duplicate loop names", { 12: "  - name: fix" }, "loops[1].name", 12, 11, "duplicate Loop name `fix` (also loops[0])"],
    ["missing required key", { 10: "" }, "loops[0].prompt", 7, 5, "required key `prompt` is missing"],
    ["cron on an issue Loop", { 11: "    agent: codex\n    cron: '0 * * * *'" }, "loops[0].cron", 12, 11, "only to `on: schedule`"],
    ["schedule Loop without cron", { 14: "" }, "loops[1].cron", 12, 5, "a schedule Loop needs `cron`"],
    ["ssh Worker without host", { 5: "  here: {type: ssh}" }, "workers.here.host", 5, 9, "an ssh Worker needs `host`"],
    ["unknown Worker", { 11: "    agent: codex\n    workers: [gpu]" }, "loops[0].workers[0]", 12, 15, "unknown worker `gpu`"],
    ["bad repository", { 1: "repositories: [widgets]" }, "repositories[0]", 1, 16, "expected a repository as `owner/name`"],
    ["selector matching nothing", { 11: "    agent: codex\n    repositories: [other/*]" }, "loops[0].repositories[0]", 12, 20, "selects none"],
    ["invalid variable name in an env grant", { 3: "  codex: {harness: codex, env: [OPENAI_KEY, 'X-Y']}" }, "agents.codex.env[1]", 3, 45, "expected an environment variable name"],
    ["env that is neither list nor map", { 3: "  codex: {harness: codex, env: 3}" }, "agents.codex.env", 3, 32, "expected a list of variable names or a map of name to value, got 3"],
    ["invalid Agent name", { 3: "  codex: {harness: codex}\n  Big Agent: {harness: pi}" }, "agents.Big Agent", 4, 3, "invalid key `Big Agent`"],
    ["a section of the wrong type", { 4: "workers: [here]", 5: "" }, "workers", 4, 10, "expected a map, got a list"],
    ["YAML syntax error", { 3: "  codex: {harness: codex" }, "", 4, 1, "Flow map"]
  ]

  for (const [name, changes, path, line, column, text] of cases) {
    it.effect(name, () => Effect.map(problemsOf(edit(changes)), (problems) => expectOne(problems, path, line, column, text)))
  }

  it.effect("an unset variable without a default names its key", () =>
    Effect.map(problemsOf(edit({ 16: "    prompt: 'Tidy ${REPO_NOTE}'" })), (problems) =>
      expectOne(problems, "loops[1].prompt", 16, 13, "environment variable REPO_NOTE is not set")
    )
  )

  it.effect("a set variable, or a default, satisfies it", () =>
    Effect.gen(function* () {
      yield* parseConfig(edit({ 16: "    prompt: 'Tidy ${REPO_NOTE}'" }), { env: { REPO_NOTE: "now" } })
      const config = yield* parseConfig(edit({ 16: "    prompt: 'Tidy ${REPO_NOTE:-later}'" }), { env: {} })
      assert.strictEqual(config.loops[1]?.prompt.source, "Tidy later")
    })
  )

  it.effect("reports every problem of the file, in file order, one line each", () =>
    Effect.gen(function* () {
      const text = edit({ 1: "repositories: [acme/widgets]\npoll_interval: soon", 9: "    if: 'item.labels.size() >'", 15: "    tz: Nowhere" })
      const error = yield* Effect.flip(parseConfig(text, { env: {}, file: "conf/usine.yaml" }))
      assert.deepStrictEqual(
        error.problems.map((p) => p.path),
        ["poll_interval", "loops[0].if", "loops[1].tz"]
      )
      const lines = error.message.split("\n")
      assert.strictEqual(lines.length, 3)
      assert.match(lines[0] ?? "", /^conf\/usine\.yaml:2:16 poll_interval: expected seconds/)
      assert.match(lines[1] ?? "", /^conf\/usine\.yaml:10:9 loops\[0\]\.if: invalid CEL expression/)
      assert.match(lines[2] ?? "", /^conf\/usine\.yaml:16:9 loops\[1\]\.tz: unknown time zone/)
    })
  )
})
