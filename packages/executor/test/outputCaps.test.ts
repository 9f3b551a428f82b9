import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import * as DurableSession from "../src/DurableSession"
import { emptyLine, splitLines } from "../src/DurableSession/streamLines"
import * as LocalTransport from "../src/LocalTransport"
import { makeTailBuffer } from "../src/TailBuffer"
import { startedWith } from "./startedWith"

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"))

describe("TailBuffer (ADR 0085)", () => {
  it("keeps the last bytes and counts the rest, whatever the chunk sizes", () => {
    const tail = makeTailBuffer(10)
    for (const chunk of ["0123", "4567", "89ab", "cdef"]) tail.push(bytes(chunk))
    assert.strictEqual(tail.text(), "6789abcdef")
    assert.strictEqual(tail.dropped(), 6)
    tail.push(bytes("x".repeat(1000)))
    assert.strictEqual(tail.text(), "x".repeat(10))
    assert.strictEqual(tail.dropped(), 1006)
  })

  it("drops nothing under the limit, and never starts inside a character", () => {
    const small = makeTailBuffer(100)
    small.push(bytes("héllo"))
    assert.deepStrictEqual([small.text(), small.dropped()], ["héllo", 0])
    const cut = makeTailBuffer(3)
    cut.push(bytes("éab")) // c3 a9 61 62: the last 3 bytes start inside the é
    assert.deepStrictEqual([cut.text(), cut.dropped()], ["ab", 1])
  })

  it("holds about one limit of memory while 64 MiB go through it", () => {
    const tail = makeTailBuffer(64 * 1024)
    const chunk = new Uint8Array(65_536).fill(0x61)
    for (let i = 0; i < 1024; i++) tail.push(chunk)
    assert.strictEqual(tail.bytes().length, 64 * 1024)
    assert.strictEqual(tail.dropped(), 64 * 1024 * 1024 - 64 * 1024)
  })
})

describe("stream lines over the cap (ADR 0085)", () => {
  it("cuts an over-long line at the cap, marks it, and buffers no more of it", () => {
    const first = splitLines(emptyLine, bytes("hi\nabcdefgh"), 4)
    assert.deepStrictEqual(first.lines, ["hi"])
    assert.deepStrictEqual([first.rest.bytes.length, first.rest.cut], [4, 4])
    const more = splitLines(first.rest, new Uint8Array(1_000_000).fill(0x7a), 4)
    assert.deepStrictEqual(more.lines, [])
    assert.deepStrictEqual([more.rest.bytes.length, more.rest.cut], [4, 1_000_004])
    const end = splitLines(more.rest, bytes("zz\nok\n"), 4)
    assert.deepStrictEqual(end.lines, ["abcd…[line cut: 1000006 more bytes dropped]", "ok"])
    assert.deepStrictEqual([end.rest.bytes.length, end.rest.cut], [0, 0])
  })

  const sessions = DurableSession.make(LocalTransport.make())
  const started = startedWith(sessions)

  it.live("a follower reads a 20 MB line without a newline as one marked line, then the lines after it", () =>
    Effect.gen(function* () {
      const { record } = yield* started({
        argv: ["sh", "-c", "head -c 20000000 /dev/zero | tr '\\0' a; echo; echo after; printf 'x%.0s' $(seq 1 3000)"]
      })
      const lines = Chunk.toReadonlyArray(
        yield* sessions.follow(record, { pollInterval: "10 millis", maxLineBytes: 1024 }).pipe(Stream.runCollect)
      )
      assert.deepStrictEqual(lines.map((l) => l.length), [1024 + "…[line cut: 19998976 more bytes dropped]".length, 5, 1024 + "…[line cut: 1976 more bytes dropped]".length])
      assert.strictEqual(lines[0], `${"a".repeat(1024)}…[line cut: 19998976 more bytes dropped]`)
      assert.strictEqual(lines[1], "after")
    }).pipe(Effect.scoped), 60_000)
})
