import { readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { writeHeapSnapshot } from "node:v8"
import { Effect } from "effect"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { memoryAfterGc } from "../memoryAfterGc"
import { pollUntil } from "../pollUntil"
import { pairSubmission } from "../seedLedger"
import { startBenchEngine } from "./benchEngine"

interface Snapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: ReadonlyArray<string>; readonly node_types: ReadonlyArray<ReadonlyArray<string> | string> } }
  readonly nodes: ReadonlyArray<number>
  readonly strings: ReadonlyArray<string>
}

/** Self bytes and objects by `type:name` (a constructor, a closure's function name, "string", "array"). */
const byKind = (file: string): Map<string, { bytes: number; count: number }> => {
  const heap = JSON.parse(readFileSync(file, "utf8")) as Snapshot
  const fields = heap.snapshot.meta.node_fields
  const types = heap.snapshot.meta.node_types[0] as ReadonlyArray<string>
  const [type, name, size] = ["type", "name", "self_size"].map((f) => fields.indexOf(f))
  const out = new Map<string, { bytes: number; count: number }>()
  for (let i = 0; i < heap.nodes.length; i += fields.length) {
    const t = types[heap.nodes[i + type!]!]!
    const raw = heap.strings[heap.nodes[i + name!]!] ?? ""
    const label = t === "string" || t === "concatenated string" || t === "sliced string" ? "string" : t === "number" ? "heap number" : raw.slice(0, 60)
    const key = `${t}:${label}`
    const entry = out.get(key) ?? { bytes: 0, count: 0 }
    entry.bytes += heap.nodes[i + size!]!
    entry.count += 1
    out.set(key, entry)
  }
  return out
}

/**
 * What one Running Run's fiber holds: heap snapshots before and after `running` Runs start an Attempt that never
 * ends, their difference by kind of object, per Run. `node --expose-gc --import tsx bench/engine/fiberProfile.ts 1000`.
 */
const running = Number(process.argv[2] ?? 1000)
const program = Effect.scoped(Effect.gen(function*() {
  const dir = process.env["KEEP_SNAPSHOT"] ?? (yield* scopedTempDir("usine-bench-fiber-"))
  const memory = yield* InMemoryExecutor.make
  memory.scriptOthers(() => Script.hang)
  const { engine } = yield* startBenchEngine(join(dir, "ledger.sqlite"), memory, running + 1)
  // One Run first, so lazily built engine state is in both snapshots.
  const now = Date.now()
  yield* engine.submit(pairSubmission(0, 0, now, { loop: "build", approvalRequired: false }))
  yield* pollUntil("first Attempt", Effect.sync(() => memory.executions.length >= 1))
  yield* Effect.sleep("1 second")
  const before = memoryAfterGc()
  const a = writeHeapSnapshot(join(dir, "before.heapsnapshot"))
  for (let k = 1; k <= running; k++) yield* engine.submit(pairSubmission(2 * k, 0, now + k, { loop: "build", approvalRequired: false }))
  yield* pollUntil("Attempts executing", Effect.sync(() => memory.executions.length >= running + 1))
  yield* Effect.sleep("1 second")
  const after = memoryAfterGc()
  const b = writeHeapSnapshot(join(dir, "after.heapsnapshot"))
  const [x, y] = [byKind(a), byKind(b)]
  rmSync(a)
  if (process.env["KEEP_SNAPSHOT"] === undefined) rmSync(b)
  else console.log(`kept ${b}`)
  const rows = [...y.entries()].map(([key, v]) => {
    const base = x.get(key) ?? { bytes: 0, count: 0 }
    return { key, bytesPerRun: (v.bytes - base.bytes) / running, objectsPerRun: (v.count - base.count) / running }
  }).sort((p, q) => q.bytesPerRun - p.bytesPerRun)
  const total = rows.reduce((s, r) => s + r.bytesPerRun, 0)
  console.log(`heapUsed per Running Run: ${(((after.heapMb - before.heapMb) * 1000) / running).toFixed(1)} KB; snapshot delta ${(total / 1024).toFixed(1)} KiB`)
  for (const r of rows.slice(0, 45)) console.log(`${(r.bytesPerRun).toFixed(0).padStart(7)} B ${r.objectsPerRun.toFixed(1).padStart(7)}  ${r.key}`)
}))
// `NO_SPANS=1`: the same with the tracer off (every span a no-op), to see what the fiber's spans cost.
Effect.runPromise(process.env["NO_SPANS"] === undefined ? program : Effect.withTracerEnabled(program, false)).then(() => process.exit(0), (e) => { console.error(e); process.exit(1) })
