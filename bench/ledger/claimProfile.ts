import { Session } from "node:inspector/promises"
import { Effect, Layer } from "effect"
import * as Sql from "@usine/store/Sql"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import { itemPayload } from "../itemPayload"
import { itemSubmission } from "../itemSubmission"
import { seededLedger } from "../seededLedger"
import { pairCount, pairOf } from "../seedLedger"
import { runLedgerOf } from "@usine/testkit/runLedger"

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** Where a frame's code lives: a package, our own package, node's internals, or V8's own (GC, program). */
const placeOf = (url: string): string => {
  if (url === "") return "(native)"
  const modules = url.lastIndexOf("node_modules/")
  if (modules >= 0) {
    const rest = url.slice(modules + "node_modules/".length).split("/")
    return rest[0]?.startsWith("@") === true ? `${rest[0]}/${rest[1]}` : rest[0] ?? url
  }
  const own = /packages\/([^/]+)\//.exec(url)
  if (own !== null) return `@usine/${own[1]}`
  return url.startsWith("node:") ? "node" : url
}

/**
 * Where the CPU of the store's claim goes: `claims` claims through `RunClaims.recordAndClaim` (hash included, as the
 * ledger bench's store side) on a seeded ledger, sampled by V8's profiler after a warm-up, self time by place and by
 * function. `node --import tsx bench/ledger/claimProfile.ts [claims]`.
 */
const main = Effect.scoped(Effect.gen(function*() {
  const claims = Number(process.argv[2] ?? 3_000)
  const warmup = 500
  const events = 2 * (claims + warmup) * 2
  const { file } = yield* seededLedger(events)
  const context = yield* Layer.build(SqlRunStore.layer.pipe(Layer.provideMerge(Sql.layerUnlocked(file))))
  const store = runLedgerOf(context)
  if (pairCount(events) < claims + warmup) return yield* Effect.dieMessage("too few pairs")
  const now = Date.now()
  const claim = (k: number) => {
    const pair = pairOf(k)
    return store.recordAndClaim(itemSubmission({ ...pair, payload: itemPayload(pair.repository, pair.number, 2), receivedAt: now + k }))
  }
  yield* Effect.forEach(Array.from({ length: warmup }, (_, k) => k), claim, { discard: true })
  const session = new Session()
  session.connect()
  yield* Effect.promise(() => session.post("Profiler.enable"))
  yield* Effect.promise(() => session.post("Profiler.setSamplingInterval", { interval: 50 }))
  yield* Effect.promise(() => session.post("Profiler.start"))
  const cpu = process.cpuUsage()
  yield* Effect.forEach(Array.from({ length: claims }, (_, k) => warmup + k), claim, { discard: true })
  const used = process.cpuUsage(cpu)
  const { profile } = (yield* Effect.promise(() => session.post("Profiler.stop"))) as { profile: Profile }
  session.disconnect()

  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const byPlace = new Map<string, number>()
  const byFunction = new Map<string, number>()
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0
    const place = placeOf(node.callFrame.url)
    byPlace.set(place, (byPlace.get(place) ?? 0) + us)
    const name = `${node.callFrame.functionName || "(anonymous)"} ${place}:${node.callFrame.lineNumber + 1}`
    byFunction.set(name, (byFunction.get(name) ?? 0) + us)
  }
  const perClaim = (us: number) => (us / claims).toFixed(1)
  console.log(`${claims} claims, ${(((used.user + used.system) / claims)).toFixed(1)} µs of process CPU each; sampled ${perClaim(total)} µs each`)
  console.log("\nself time per claim, by place:")
  for (const [place, us] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${perClaim(us).padStart(7)} µs  ${place}`)
  console.log("\nself time per claim, by function:")
  for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${perClaim(us).padStart(7)} µs  ${name}`)
}))

Effect.runPromise(main).catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
