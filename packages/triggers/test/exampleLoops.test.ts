import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import type { ContextType } from "@usine/core/config/ContextType"
import { evaluateIf } from "@usine/core/config/evaluateIf"
import { loopContextType } from "@usine/core/config/LoopContextType"
import { parseConfig } from "@usine/core/config/parseConfig"
import { contextFields } from "@usine/triggers/contextFields"
import { type ItemNode, itemFieldsOf } from "@usine/triggers/ItemFields"
import { tickFieldsOf } from "@usine/triggers/ScheduleTick"

const example = readFileSync(new URL("../../../usine.yaml.example", import.meta.url), "utf8")

const base: ItemNode = {
  __typename: "Issue",
  number: 7,
  title: "Slugs keep trailing dashes",
  body: "See the test.",
  state: "OPEN",
  url: "https://github.com/acme/widgets/issues/7",
  authorAssociation: "MEMBER",
  author: { login: "alice" },
  labels: { nodes: [] },
  assignees: { nodes: [] },
  comments: { totalCount: 0, nodes: [] }
}

const pullRequest: ItemNode = {
  ...base,
  __typename: "PullRequest",
  isDraft: false,
  merged: false,
  mergeable: "MERGEABLE",
  reviewDecision: "REVIEW_REQUIRED",
  headRefName: "fix-slugs",
  headRefOid: "0123456789abcdef0123456789abcdef01234567",
  baseRefName: "main",
  reviews: { nodes: [{ state: "COMMENTED", body: "ok", submittedAt: "2026-03-28T09:00:00Z", authorAssociation: "OWNER", author: { login: "bob" } }] }
}

const labelled = (node: ItemNode, label: string): ItemNode => ({ ...node, labels: { nodes: [{ name: label }] } })

/** An Item each Loop of the example is written for, built the way a poll builds it. */
const itemFor: Readonly<Record<string, (loop: { readonly on: string }) => unknown>> = {
  "start-dev": () => contextFields(itemFieldsOf("issue", labelled(base, "ready-for-agent")), () => true),
  "review-pr": () => contextFields(itemFieldsOf("pull_request", labelled(pullRequest, "ready-for-review")), () => true),
  "nightly-lint": () => ({
    kind: "tick",
    tick: { scheduledAt: "2026-12-07T02:00:00.000Z", scheduledAtLocal: "2026-12-07T03:00:00+01:00", cron: "0 3 * * 1-5", tz: "Europe/Paris" }
  })
}

/** The keys of a value against a declared type, recursively: what one has and the other lacks. */
const mismatches = (value: unknown, type: ContextType, path: string): ReadonlyArray<string> => {
  if (type.kind === "object") {
    const record = value as Record<string, unknown>
    const declared = Object.keys(type.fields)
    const actual = Object.keys(record)
    return [
      ...actual.filter((key) => !declared.includes(key)).map((key) => `${path}.${key} is not declared`),
      ...declared.flatMap((key) =>
        key in record ? mismatches(record[key], type.fields[key]!, `${path}.${key}`) : [`${path}.${key} is missing`]
      )
    ]
  }
  if (type.kind === "list") return (value as ReadonlyArray<unknown>).flatMap((inner) => mismatches(inner, type.of, `${path}[]`))
  const kinds = { string: "string", int: "number", bool: "boolean" } as const
  if (typeof value !== kinds[type.kind]) return [`${path} is ${typeof value}, declared ${type.kind}`]
  if (type.kind === "string" && type.values !== undefined && !type.values.includes(value as string)) {
    return [`${path} is ${JSON.stringify(value)}, not one of the declared values`]
  }
  return []
}

describe("usine.yaml.example", () => {
  it.effect("every Loop fires on an Item built for it", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(example, { env: {} })
      assert.deepStrictEqual(config.loops.map((loop) => loop.name).sort(), Object.keys(itemFor).sort())
      for (const loop of config.loops) {
        const item = itemFor[loop.name]!(loop)
        assert.deepStrictEqual(mismatches(item, loopContextType(loop.on), "item"), [], loop.name)
        assert.isTrue(yield* evaluateIf(loop, { item, repository: "acme/widgets" }), `${loop.name} does not fire: ${loop.if.source}`)
      }
    })
  )
})

describe("the declared context", () => {
  it("is what a poll builds: every field of an issue's, a pull request's and a Tick's item, with values it admits", () => {
    assert.deepStrictEqual(mismatches(itemFieldsOf("issue", base), loopContextType("issues"), "item"), [])
    assert.deepStrictEqual(mismatches(itemFieldsOf("pull_request", pullRequest), loopContextType("pull_requests"), "item"), [])
    const merged = itemFieldsOf("pull_request", { ...pullRequest, state: "MERGED", merged: true, reviewDecision: null })
    assert.deepStrictEqual(mismatches(merged, loopContextType("pull_requests"), "item"), [])
    const tick = { kind: "tick", tick: tickFieldsOf({ cron: "0 3 * * *", tz: "UTC" } as never, Date.UTC(2026, 0, 1)) }
    assert.deepStrictEqual(mismatches(tick, loopContextType("schedule"), "item"), [])
  })
})
