import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { canonicalJson, contentHash } from "@usine/core/content/contentHash"

describe("contentHash", () => {
  it("ignores key order", () => {
    expect(contentHash({ a: 1, b: { c: [1, { d: 2, e: 3 }] } })).toBe(
      contentHash({ b: { c: [1, { e: 3, d: 2 }] }, a: 1 })
    )
  })

  it("drops volatile timestamps at every depth", () => {
    const base = { title: "t", labels: [{ name: "bug" }], comments: [{ body: "hi" }] }
    const stamped = {
      title: "t",
      updatedAt: "2026-01-01",
      createdAt: "x",
      labels: [{ name: "bug", createdAt: "y" }],
      comments: [{ body: "hi", updatedAt: "z", submittedAt: "w" }],
      closedAt: null,
      mergedAt: null
    }
    expect(contentHash(stamped)).toBe(contentHash(base))
    expect(canonicalJson(stamped)).toBe('{"comments":[{"body":"hi"}],"labels":[{"name":"bug"}],"title":"t"}')
  })

  it("changes with a label", () => {
    expect(contentHash({ labels: ["a"] })).not.toBe(contentHash({ labels: ["a", "b"] }))
  })

  it("is independent of key order for any object", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (dict) => {
        const reversed = Object.fromEntries(Object.entries(dict).reverse())
        return contentHash(dict) === contentHash(reversed)
      })
    )
  })
})
