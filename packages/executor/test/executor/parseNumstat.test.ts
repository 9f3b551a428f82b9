import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseNumstat } from "../../src/Harvest/parseNumstat"

describe("parseNumstat", () => {
  it("reads plain files, renames, binary files, and paths with spaces, tabs and newlines", () => {
    const output = [
      "3\t1\tsrc/app.ts\0",
      "0\t0\t\0old name.md\0new name.md\0",
      "-\t-\tlogo.png\0",
      "2\t0\tline\nbreak.txt\0",
      "1\t1\ttab\there.txt\0",
      "5\t2\t\0a/{x}.ts\0b/{x => y}.ts\0",
      "0\t7\tgone.txt\0"
    ].join("")
    assert.deepStrictEqual(parseNumstat(output), [
      { path: "src/app.ts", insertions: 3, deletions: 1, binary: false },
      { path: "new name.md", oldPath: "old name.md", insertions: 0, deletions: 0, binary: false },
      { path: "logo.png", insertions: 0, deletions: 0, binary: true },
      { path: "line\nbreak.txt", insertions: 2, deletions: 0, binary: false },
      { path: "tab\there.txt", insertions: 1, deletions: 1, binary: false },
      { path: "b/{x => y}.ts", oldPath: "a/{x}.ts", insertions: 5, deletions: 2, binary: false },
      { path: "gone.txt", insertions: 0, deletions: 7, binary: false }
    ])
  })

  it("reads nothing from an empty diff, and stops at a record it does not understand", () => {
    assert.deepStrictEqual(parseNumstat(""), [])
    assert.deepStrictEqual(parseNumstat("1\t0\ta.txt\0garbage\0" + "2\t0\tb.txt\0"), [
      { path: "a.txt", insertions: 1, deletions: 0, binary: false }
    ])
    assert.deepStrictEqual(parseNumstat("1\t0\t\0only-old\0"), [], "a rename cut short")
  })

  it("agrees with git itself on a binary rename", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "usine-numstat-"))
    try {
      const git = (...args: Array<string>) =>
        execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], { encoding: "utf8" })
      git("init", "-q")
      fs.writeFileSync(path.join(dir, "image.bin"), Buffer.from([0, 1, 2, 3, 4, 5, 6, 7]))
      git("add", "-A")
      git("commit", "-q", "-m", "base")
      fs.renameSync(path.join(dir, "image.bin"), path.join(dir, "pic ture.bin"))
      git("add", "-A")
      git("commit", "-q", "-m", "move")
      assert.deepStrictEqual(parseNumstat(git("diff", "--numstat", "-z", "-M", "HEAD~1", "HEAD")), [
        { path: "pic ture.bin", oldPath: "image.bin", insertions: 0, deletions: 0, binary: true }
      ])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
