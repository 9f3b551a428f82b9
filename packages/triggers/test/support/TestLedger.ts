import { join } from "node:path"
import { Context, Effect, Layer, Ref } from "effect"
import type { Submission } from "@usine/core/event/Submission"
import * as Sql from "@usine/store/Sql"
import * as SqlItemStore from "@usine/store/SqlItemStore"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import * as SqlTriggerRefusals from "@usine/store/SqlTriggerRefusals"
import { LoopControl } from "@usine/triggers/LoopControl"
import { TriggerRefused, TriggerSink } from "@usine/triggers/TriggerSink"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { runLedger } from "@usine/testkit/runLedger"

/** A fresh directory for the scope, removed with everything in it afterwards. */
export const tempDir = scopedTempDir("usine-github-")

/** Every Submission the triggers made, in order. */
export class Submitted extends Context.Tag("test/Submitted")<Submitted, Ref.Ref<ReadonlyArray<Submission>>>() {}

/** Item numbers whose next submission the sink refuses, once each: an engine failure injected mid-cycle. */
export class RefuseOnce extends Context.Tag("test/RefuseOnce")<RefuseOnce, Ref.Ref<ReadonlySet<number>>>() {}

/** The trigger sink straight onto the ledger (what the RunEngine does, minus the Run fibers), recording Submissions. */
const LedgerSink = Layer.effectContext(
  Effect.gen(function* () {
    const store = yield* runLedger
    const submitted = yield* Ref.make<ReadonlyArray<Submission>>([])
    const refuse = yield* Ref.make<ReadonlySet<number>>(new Set())
    const refused = (number: number | undefined) =>
      Ref.modify(refuse, (set): [boolean, ReadonlySet<number>] => {
        if (number === undefined || !set.has(number)) return [false, set]
        const next = new Set(set)
        next.delete(number)
        return [true, next]
      })
    const sink = TriggerSink.of({
      submit: (submission) =>
        Effect.gen(function* () {
          if (yield* refused(submission.number)) {
            return yield* new TriggerRefused({ loop: submission.loop, detail: "injected by the test" })
          }
          yield* Ref.update(submitted, (list) => [...list, submission])
          return yield* store.recordAndClaim(submission)
        }),
      revoke: (loop, itemKey) => Effect.asVoid(store.revoke(loop, itemKey))
    })
    return Context.make(TriggerSink, sink).pipe(Context.add(Submitted, submitted), Context.add(RefuseOnce, refuse))
  })
)

/**
 * The Run ports, ItemStore, TriggerRefusals, LoopControl and a recording ledger-backed TriggerSink on a real SQLite file
 * in a temp dir.
 */
export const TestLedger = Layer.unwrapScoped(
  Effect.map(tempDir, (dir) =>
    Layer.mergeAll(LoopControl.layerLedger, LedgerSink).pipe(
      Layer.provideMerge(Layer.mergeAll(SqlRunStore.layer, SqlItemStore.layer, SqlTriggerRefusals.layer)),
      Layer.provide(Sql.layerUnlocked(join(dir, "ledger.sqlite"))),
      Layer.orDie
    )
  )
)
