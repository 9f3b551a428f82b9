import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { type DiffFileStat, summarizeDiff } from "@usine/core/attempt/DiffSummary"
import { AttemptOutcome } from "@usine/core/attempt/outcome"

const file = (n: number, patch: Partial<DiffFileStat> = {}): DiffFileStat => ({
  path: `f${String(n).padStart(3, "0")}.ts`, insertions: n, deletions: 1, binary: false, ...patch
})
const OutcomeJson = Schema.parseJson(AttemptOutcome)

describe("DiffSummary", () => {
  it("totals every file, lists the first ones by name and counts the rest", () => {
    const files = [...Array.from({ length: 60 }, (_, i) => file(i + 1)), file(0, { path: "logo.png", binary: true, deletions: 0 })]
    const summary = summarizeDiff(files)
    assert.strictEqual(summary.filesChanged, 61)
    assert.strictEqual(summary.insertions, (60 * 61) / 2)
    assert.strictEqual(summary.deletions, 60)
    assert.strictEqual(summary.binaryFiles, 1)
    assert.deepStrictEqual(summary.files, files.slice(0, 50))
    assert.strictEqual(summary.filesOmitted, 11)
    assert.deepStrictEqual(summarizeDiff([]), { filesChanged: 0, insertions: 0, deletions: 0, binaryFiles: 0, files: [], filesOmitted: 0 })
  })

  it("an outcome stored before diffs existed still decodes, and one with a diff survives the ledger's JSON", () => {
    const old = Schema.decodeUnknownSync(OutcomeJson)('{"_tag":"Succeeded","result":{"commits":["abc"],"branch":"usine/x/1-ab"}}')
    assert.strictEqual(old._tag, "Succeeded")
    if (old._tag === "Succeeded") assert.isUndefined(old.result.diff)

    const diff = summarizeDiff([file(3), file(0, { path: "b.md", oldPath: "a.md", deletions: 0 })])
    const stored = Schema.encodeSync(OutcomeJson)(Schema.decodeUnknownSync(AttemptOutcome)({ _tag: "Succeeded", result: { commits: [], diff } }))
    const read = Schema.decodeUnknownSync(OutcomeJson)(stored)
    assert.deepStrictEqual(read._tag === "Succeeded" ? read.result.diff : undefined, diff)
    assert.throws(() => Schema.decodeUnknownSync(OutcomeJson)(stored.replace('"insertions":3', '"insertions":-3')))
  })
})
