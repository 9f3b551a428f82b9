import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { REPOSITORY, runOf, startBoard, submission, untilState } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

const issue = (number: number, labels: ReadonlyArray<string>) => ({
  itemKey: itemKeyOf(REPOSITORY, number),
  repository: REPOSITORY,
  number,
  payload: { number, title: `Issue ${number}`, state: "OPEN", url: `https://github.test/${REPOSITORY}/issues/${number}`, labels: { nodes: labels.map((name) => ({ name })) } },
  contentHash: `h${number}`,
  observedAt: 1
})

describe("Board Loop, budget and card actions", () => {
  it.scoped("pause and unpause a configured Loop, repeatably; an unknown Loop is 404", () =>
    Effect.gen(function* () {
      const { client, engine } = yield* startBoard()
      const browser = client()
      for (let i = 0; i < 2; i++) {
        const paused = yield* promise(() => browser.act("/loops/build/pause"))
        assert.deepStrictEqual([paused.status, paused.body.paused], [200, true])
      }
      const refused = yield* Effect.flip(engine.submit(submission({ number: 1 })))
      assert.strictEqual(refused._tag, "LoopPaused", "the engine sees the pause")
      const page = yield* promise(() => browser.get("/loops"))
      assert.match(page.body, /data-loop="build" data-paused="yes"/)
      assert.include(page.body, 'data-testid="unpause-build"')
      const unpaused = yield* promise(() => browser.act("/loops/build/unpause"))
      assert.deepStrictEqual([unpaused.status, unpaused.body.paused], [200, false])
      yield* engine.submit(submission({ number: 1 }))
      const unknown = yield* promise(() => browser.act("/loops/nightly/pause"))
      assert.deepStrictEqual([unknown.status, unknown.body.error], [404, "LoopNotConfigured"])
    }))

  it.scoped("a spent cycle budget shows its Ask; the reset answers it once, a repeated click changes nothing", () =>
    Effect.gen(function* () {
      const { client, engine, store } = yield* startBoard()
      const browser = client()
      for (const content of ["a", "b", "c"]) {
        const s = submission({ number: 7, content })
        yield* engine.submit(s)
        yield* untilState(store, runOf(s), "Succeeded")
      }
      const blocked = yield* engine.submit(submission({ number: 7, content: "d" }))
      assert.strictEqual(blocked._tag, "CycleBlocked")
      const needs = JSON.parse((yield* promise(() => browser.get("/api/needs-you"))).body) as { asks: Array<{ askId: string; itemKey: string }> }
      assert.strictEqual(needs.asks.length, 1)
      const [ask] = needs.asks
      const fields = { itemKey: ask!.itemKey, askId: ask!.askId }
      const reset = yield* promise(() => browser.act("/budgets/reset", fields))
      assert.deepStrictEqual([reset.status, reset.body.reset, reset.body.generation], [200, true, 1])
      const again = yield* promise(() => browser.act("/budgets/reset", fields))
      assert.deepStrictEqual([again.status, again.body.reset, again.body.generation], [200, false, 1])
      assert.strictEqual(yield* store.generation(itemKeyOf(REPOSITORY, 7)), 1)
      const malformed = yield* promise(() => browser.act("/budgets/reset", { itemKey: "7" }))
      assert.deepStrictEqual([malformed.status, malformed.body.field], [400, "itemKey"])
    }))

  it.scoped("moving a card swaps its column label through BoardMoves once; a repeat is a no-op; unknowns are refused", () =>
    Effect.gen(function* () {
      const { client, items, moves } = yield* startBoard()
      const browser = client()
      yield* items.saveProjection(issue(10, ["bug", "ready-for-agent"]))
      yield* items.saveProjection(issue(11, []))
      const moved = yield* promise(() => browser.act("/board/move", { repository: REPOSITORY, number: 10, column: "Review" }))
      assert.deepStrictEqual([moved.status, moved.body.moved], [200, true])
      assert.deepStrictEqual(moves, [{ repository: REPOSITORY, number: 10, from: "ready-for-agent", to: "ready-for-review" }])
      const again = yield* promise(() => browser.act("/board/move", { repository: REPOSITORY, number: 10, column: "Review" }))
      assert.deepStrictEqual([again.status, again.body.moved], [200, false])
      assert.strictEqual(moves.length, 1)
      const fresh = yield* promise(() => browser.post("/board/move", { repository: REPOSITORY, number: 11, column: "Ready" }))
      assert.deepStrictEqual([fresh.status, fresh.headers.location], [303, "/board"])
      assert.deepStrictEqual(moves[1], { repository: REPOSITORY, number: 11, from: undefined, to: "ready-for-agent" })

      const board = JSON.parse((yield* promise(() => browser.get("/api/board"))).body) as {
        columns: Array<{ name: string; cards: Array<{ number: number }> }>
      }
      assert.deepStrictEqual(board.columns.map((c) => [c.name, c.cards.map((card) => card.number)]), [["Ready", [11]], ["Review", [10]]])

      const column = yield* promise(() => browser.act("/board/move", { repository: REPOSITORY, number: 10, column: "Done" }))
      assert.deepStrictEqual([column.status, column.body.error, column.body.column], [400, "UnknownColumn", "Done"])
      const item = yield* promise(() => browser.act("/board/move", { repository: REPOSITORY, number: 99, column: "Ready" }))
      assert.deepStrictEqual([item.status, item.body.error], [404, "ItemNotOnBoard"])
      const repository = yield* promise(() => browser.act("/board/move", { repository: "other/repo", number: 10, column: "Ready" }))
      assert.strictEqual(repository.status, 404)
      const number = yield* promise(() => browser.act("/board/move", { repository: REPOSITORY, number: "x", column: "Ready" }))
      assert.deepStrictEqual([number.status, number.body.field, number.body.message], [400, "number", 'number: expected a number, got "x"'])
    }))
})
