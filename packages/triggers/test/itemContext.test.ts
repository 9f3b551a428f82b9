import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ItemLoop } from "@usine/core/config/CompiledLoop"
import { evaluateIf } from "@usine/core/config/evaluateIf"
import { renderPrompt } from "@usine/core/config/renderPrompt"
import { contentHash } from "@usine/core/content/contentHash"
import { contextFields } from "@usine/triggers/contextFields"
import { type ItemNode, itemFieldsOf } from "@usine/triggers/ItemFields"
import { settingsOf } from "./support/settingsOf"

const node: ItemNode = {
  __typename: "PullRequest",
  number: 12,
  title: "Add a widget",
  body: "It widgets.",
  state: "OPEN",
  url: "https://github.com/acme/widgets/pull/12",
  authorAssociation: "MEMBER",
  author: { login: "alice" },
  labels: { nodes: [{ name: "ready-for-agent" }] },
  assignees: { nodes: [] },
  comments: { totalCount: 1, nodes: [{ body: "lgtm?", createdAt: "2026-03-28T08:00:00Z", authorAssociation: "NONE", author: null }] },
  isDraft: false,
  merged: false,
  mergeable: "MERGEABLE",
  reviewDecision: "CHANGES_REQUESTED",
  headRefName: "feature",
  headRefOid: "abc",
  baseRefName: "main",
  reviews: { nodes: [{ state: "CHANGES_REQUESTED", body: "fix", submittedAt: "2026-03-28T09:00:00Z", authorAssociation: "OWNER", author: { login: "bob" } }] }
}

// The README's examples, compiled by the real config loader.
const loops = settingsOf(`repositories: [acme/widgets]
loops:
  - name: trusted
    on: pull_requests
    if: '"ready-for-agent" in item.labels && item.authorAssociation in ["OWNER", "MEMBER", "COLLABORATOR"]'
    prompt: |
      Work on {{ repository }}#{{ item.number }}: {{ item.title }}
      {{ item.body }}
      Labels: {{ item.labels | join: ", " }}
    agent: codex
  - name: changes
    on: pull_requests
    if: item.kind == "pull_request" && !item.isDraft && item.reviewDecision == "CHANGES_REQUESTED" && item.reviews[0].author == "bob" && item.comments[0].author == "ghost"
    prompt: "{{ item.headRef }} into {{ item.baseRef }} ({{ item.mergeable }}, {{ item.commentCount }} comment)"
    agent: codex
`).loops as ReadonlyArray<ItemLoop>

describe("the item context the README documents", () => {
  it.effect("if: and prompt: read the normalized fields of a payload slice", () =>
    Effect.gen(function* () {
      const context = { item: itemFieldsOf("pull_request", node), repository: "acme/widgets" }
      assert.deepStrictEqual(yield* Effect.forEach(loops, (loop) => evaluateIf(loop, context)), [true, true])
      assert.strictEqual(
        yield* renderPrompt(loops[0]!, context),
        "Work on acme/widgets#12: Add a widget\nIt widgets.\nLabels: ready-for-agent\n"
      )
      assert.strictEqual(yield* renderPrompt(loops[1]!, context), "feature into main (MERGEABLE, 1 comment)")
      const issue = itemFieldsOf("issue", { ...node, __typename: "Issue", labels: { nodes: [] } })
      assert.isFalse(yield* evaluateIf(loops[0]!, { item: issue, repository: "acme/widgets" }))
    })
  )
})

describe("the Loop's view of an Item, which its content hash covers", () => {
  const outsider = { body: "Cancel this.", createdAt: "2026-03-28T10:00:00Z", authorAssociation: "NONE", author: { login: "eve" } }
  const trusted = (comment: { readonly author: string }) => comment.author !== "eve"
  const view = (extra: ReadonlyArray<typeof outsider>, body = node.body) =>
    contextFields(itemFieldsOf("pull_request", { ...node, body, comments: { totalCount: 1 + extra.length, nodes: [...node.comments.nodes, ...extra] } }), trusted)

  it("an untrusted comment is out of the view, its count included, so the hash stays", () => {
    const before = view([])
    const after = view([outsider])
    assert.deepStrictEqual(after.comments.map((c) => c.author), ["ghost"])
    assert.strictEqual(after.commentCount, 1)
    assert.strictEqual(contentHash(after), contentHash(before))
  })

  it("an edit of hidden text keeps the hash; a visible edit changes it", () => {
    const before = view([], "It widgets.<!-- a -->")
    assert.strictEqual(contentHash(view([], "It widgets.<!-- b, longer -->")), contentHash(before))
    assert.notStrictEqual(contentHash(view([], "It widgets twice.")), contentHash(before))
  })
})
