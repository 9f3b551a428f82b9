import { assert } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Exit, Option } from "effect"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { RunNotFound } from "@usine/core/run/RunWriteRefusals"
import { RunId } from "@usine/core/ids/RunId"
import { ItemStore } from "@usine/store/ItemStore"
import { RunLookup } from "@usine/store/RunLookup"
import { testLedger } from "./fixtures/testLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

// Issue 35: a query keeps SqlError in its type up to the port, where it becomes a defect once; a refusal the caller
// can act on stays a typed failure.
describeEngines("the ledger's ports", (engine) => {
  layer(testLedger(engine))("at the edge", (it) => {
    it.effect("a refusal is a typed failure; a SQL failure is a defect carrying the SqlError", () =>
      Effect.gen(function* () {
        const lookup = yield* RunLookup
        const missing = yield* Effect.exit(lookup.getRun(RunId("no-such-run")))
        assert.isTrue(Exit.isFailure(missing) && Option.exists(Cause.failureOption(missing.cause), (e) => e instanceof RunNotFound))

        const items = yield* ItemStore
        const sql = yield* SqlClient.SqlClient
        yield* sql`DROP TABLE usine_item_projections`.pipe(Effect.orDie)
        const broken = yield* Effect.exit(items.projection(itemKeyOf("acme/widgets", 1)))
        assert.isTrue(Exit.isFailure(broken))
        if (Exit.isFailure(broken)) {
          assert.isTrue(Option.isNone(Cause.failureOption(broken.cause)), "no typed failure reaches the caller")
          const defect = Cause.dieOption(broken.cause)
          assert.isTrue(Option.exists(defect, (d) => d instanceof SqlError), "the SqlError, as a defect")
        }
      }))
  })
})
