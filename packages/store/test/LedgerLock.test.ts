import { assert, describe, it } from "@effect/vitest"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Exit, Layer, Scope } from "effect"
import { acquireLedgerLock, holderFileOf, LedgerLocked, lockFileOf } from "@usine/store/LedgerLock"
import * as Sql from "@usine/store/Sql"
import { exitCode, spawnScript, waitFor } from "./fixtures/childProcess"
import { tempDir } from "./fixtures/testLedger"

describe("LedgerLock (SQLite only)", () => {
  it.scoped("a second process refuses with a message naming the ledger and this process's pid", () =>
    Effect.gen(function* () {
      const ledger = join(yield* tempDir, "ledger.sqlite")
      yield* Layer.build(Sql.layer(ledger))
      const child = yield* spawnScript("./holdLock.ts", [ledger])
      assert.strictEqual(yield* exitCode(child), 3)
      assert.include(child.output(), `refused: the ledger ${ledger} is already open in process ${process.pid}`)
    }), 30_000)

  it.scoped("while another live process holds it, opening the ledger fails with LedgerLocked naming that pid", () =>
    Effect.gen(function* () {
      const ledger = join(yield* tempDir, "ledger.sqlite")
      const child = yield* spawnScript("./holdLock.ts", [ledger])
      yield* waitFor(child, "locked")
      const exit = yield* Effect.exit(Layer.build(Sql.layer(ledger)))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause : undefined
      const locked = error?._tag === "Fail" ? error.error : undefined
      assert.instanceOf(locked, LedgerLocked)
      if (!(locked instanceof LedgerLocked)) return
      assert.strictEqual(locked.pid, child.process.pid)
      assert.include(locked.message, ledger)
      assert.include(locked.message, `process ${child.process.pid}`)
      assert.isFalse(existsSync(ledger), "the refused process never opened the ledger file")

      // Released by the holder: the lock is free again.
      child.process.stdin.end()
      assert.strictEqual(yield* exitCode(child), 0)
      assert.isFalse(existsSync(holderFileOf(ledger)))
      yield* Layer.build(Sql.layer(ledger))
    }), 30_000)

  it.scoped("a holder killed with SIGKILL leaves a stale lock that the next process takes over", () =>
    Effect.gen(function* () {
      const ledger = join(yield* tempDir, "ledger.sqlite")
      const child = yield* spawnScript("./holdLock.ts", [ledger])
      yield* waitFor(child, "locked")
      child.process.kill("SIGKILL")
      yield* exitCode(child)
      assert.strictEqual(JSON.parse(readFileSync(holderFileOf(ledger), "utf8")).pid, child.process.pid)
      const lock = yield* acquireLedgerLock(ledger)
      assert.strictEqual(lock.pid, process.pid)
      assert.strictEqual(JSON.parse(readFileSync(holderFileOf(ledger), "utf8")).pid, process.pid)
    }), 30_000)

  it.scoped("a leftover lock and holder file of a dead process do not block; release removes the holder file", () =>
    Effect.gen(function* () {
      const ledger = join(yield* tempDir, "ledger.sqlite")
      writeFileSync(lockFileOf(ledger), "")
      writeFileSync(holderFileOf(ledger), JSON.stringify({ pid: 999_999_999, host: "elsewhere" }))
      const scope = yield* Scope.make()
      yield* Scope.extend(acquireLedgerLock(ledger), scope)
      const again = yield* Effect.flip(acquireLedgerLock(ledger))
      assert.strictEqual(again.pid, process.pid, "a second open in the same process is refused too")
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(holderFileOf(ledger)))
      yield* acquireLedgerLock(ledger)
    }))
})
