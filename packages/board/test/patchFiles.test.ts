import { assert, describe, it } from "@effect/vitest"
import { patchFiles } from "@usine/board/BoardViews/patchFiles"

const PATCH = `diff --git a/src/a.js b/src/a.js
index 1111111..2222222 100644
--- a/src/a.js
+++ b/src/a.js
@@ -1,3 +1,3 @@ export
 keep
-old
+new
 tail
\\ No newline at end of file
diff --git a/old name.md b/new name.md
similarity index 90%
rename from old name.md
rename to new name.md
diff --git a/logo.png b/logo.png
new file mode 100644
index 0000000..3333333
Binary files /dev/null and b/logo.png differ
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index 4444444..0000000
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
`

describe("patchFiles", () => {
  it("reads modified, renamed, binary and deleted files with their numbered lines", () => {
    const files = patchFiles(PATCH)
    assert.deepStrictEqual(files.map((f) => [f.path, f.oldPath, f.status, f.binary, f.insertions, f.deletions]), [
      ["src/a.js", undefined, "modified", false, 1, 1],
      ["new name.md", "old name.md", "renamed", false, 0, 0],
      ["logo.png", undefined, "added", true, 0, 0],
      ["gone.txt", undefined, "deleted", false, 0, 1]
    ])
    const lines = files[0]?.hunks[0]?.lines ?? []
    assert.deepStrictEqual(lines.map((l) => [l.kind, l.text, l.oldNumber, l.newNumber]), [
      ["ctx", "keep", 1, 1],
      ["del", "old", 2, undefined],
      ["add", "new", undefined, 2],
      ["ctx", "tail", 3, 3],
      ["note", "\\ No newline at end of file", undefined, undefined]
    ])
  })

  it("keeps what it read of a patch cut mid-file, and reads nothing from an empty one", () => {
    const cut = patchFiles(PATCH.slice(0, PATCH.indexOf("+new") + 4))
    assert.strictEqual(cut.length, 1)
    assert.strictEqual(cut[0]?.insertions, 1)
    assert.deepStrictEqual(patchFiles(""), [])
  })
})
