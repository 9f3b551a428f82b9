import { assert, describe, it } from "@effect/vitest"
import { parseUnifiedDiff } from "../../src/guards/UnifiedDiff"

const diff = (...lines: ReadonlyArray<string>) => `${lines.join("\n")}\n`

describe("parseUnifiedDiff", () => {
  it("numbers added lines as in the new file and ignores removed lines that look like headers", () => {
    const files = parseUnifiedDiff(
      diff(
        "diff --git a/src/app.ts b/src/app.ts",
        "index 83db48f..bf269f4 100644",
        "--- a/src/app.ts",
        "+++ b/src/app.ts",
        "@@ -1,4 +1,5 @@",
        " one",
        "--- not a header",
        "+two",
        " three",
        "+four",
        "+++ not a header either",
        " five",
        "@@ -20 +21 @@",
        "-old",
        "+new",
        "\\ No newline at end of file"
      )
    )
    assert.strictEqual(files.length, 1)
    assert.deepStrictEqual(files[0], {
      oldPath: "src/app.ts",
      newPath: "src/app.ts",
      binary: false,
      added: [
        { line: 2, text: "two" },
        { line: 4, text: "four" },
        { line: 5, text: "++ not a header either" },
        { line: 21, text: "new" }
      ]
    })
  })

  it("reads added, deleted, renamed, copied, binary and mode-only files", () => {
    const files = parseUnifiedDiff(
      diff(
        "diff --git a/new.txt b/new.txt",
        "new file mode 100644",
        "index 0000000..ce01362",
        "--- /dev/null",
        "+++ b/new.txt",
        "@@ -0,0 +1 @@",
        "+hello",
        "diff --git a/gone.txt b/gone.txt",
        "deleted file mode 100644",
        "--- a/gone.txt",
        "+++ /dev/null",
        "@@ -1 +0,0 @@",
        "-bye",
        "diff --git a/.github/workflows/ci.yml b/docs/ci.yml",
        "similarity index 100%",
        "rename from .github/workflows/ci.yml",
        "rename to docs/ci.yml",
        "diff --git a/a.txt b/b.txt",
        "similarity index 90%",
        "copy from a.txt",
        "copy to b.txt",
        "--- a/a.txt",
        "+++ b/b.txt",
        "@@ -1 +1,2 @@",
        " same",
        "+more",
        "diff --git a/logo.png b/logo.png",
        "index 1111111..2222222 100644",
        "Binary files a/logo.png and b/logo.png differ",
        "diff --git a/run.sh b/run.sh",
        "old mode 100644",
        "new mode 100755"
      )
    )
    assert.deepStrictEqual(
      files.map((f) => [f.oldPath, f.newPath, f.added.length, f.binary]),
      [
        [undefined, "new.txt", 1, false],
        ["gone.txt", undefined, 0, false],
        [".github/workflows/ci.yml", "docs/ci.yml", 0, false],
        ["a.txt", "b.txt", 1, false],
        ["logo.png", "logo.png", 0, true],
        ["run.sh", "run.sh", 0, false]
      ]
    )
  })

  it("reads quoted paths and paths with spaces", () => {
    const files = parseUnifiedDiff(
      diff(
        'diff --git "a/caf\\303\\251 \\"menu\\".txt" "b/caf\\303\\251 \\"menu\\".txt"',
        "new file mode 100644",
        "diff --git a/my file.txt b/my file.txt",
        "old mode 100644",
        "new mode 100755",
        "diff --git a/x b/../../etc/passwd",
        "--- a/x",
        "+++ b/../../etc/passwd",
        "@@ -1 +1 @@",
        "-a",
        "+b"
      )
    )
    assert.deepStrictEqual(
      files.map((f) => [f.oldPath, f.newPath]),
      [
        [undefined, 'café "menu".txt'],
        ["my file.txt", "my file.txt"],
        ["x", "../../etc/passwd"]
      ]
    )
  })

  it("reads a plain diff -u without git headers", () => {
    const files = parseUnifiedDiff(
      diff("--- a/one\t2026-01-01", "+++ b/one\t2026-01-02", "@@ -1 +1 @@", "-x", "+y", "--- a/two", "+++ b/two", "@@ -0,0 +1 @@", "+z")
    )
    assert.deepStrictEqual(files.map((f) => [f.newPath, f.added]), [
      ["one", [{ line: 1, text: "y" }]],
      ["two", [{ line: 1, text: "z" }]]
    ])
  })
})
