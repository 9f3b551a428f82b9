import { assert, describe, it } from "@effect/vitest"
import { changedFiles } from "../../src/guards/ChangedFiles"
import { DEFAULT_FORBIDDEN_PATHS, forbiddenPaths } from "../../src/guards/ForbiddenPaths"
import type { DiffFile } from "../../src/guards/UnifiedDiff"

const file = (oldPath: string | undefined, newPath: string | undefined): DiffFile => ({ oldPath, newPath, added: [], binary: false })
const changed = (path: string) => file(path, path)

describe("forbiddenPaths", () => {
  it("refuses workflow changes by default, whatever the case or depth", () => {
    const violations = forbiddenPaths(
      [changed(".github/workflows/ci.yml"), changed(".GitHub/Workflows/deep/x.yaml"), changed(".github/CODEOWNERS"), changed("src/a.ts")],
      DEFAULT_FORBIDDEN_PATHS
    )
    assert.deepStrictEqual(
      violations.map((v) => v.path),
      [".github/workflows/ci.yml", ".GitHub/Workflows/deep/x.yaml"]
    )
    assert.strictEqual(violations[0]?.detail, "matches forbidden path .github/workflows/**")
  })

  it("counts both sides of a rename, and additions and deletions", () => {
    const violations = forbiddenPaths(
      [file(".github/workflows/ci.yml", "docs/ci.yml"), file("tools/x.yml", ".github/workflows/x.yml"), file(undefined, ".github/workflows/new.yml"), file(".github/workflows/old.yml", undefined)],
      DEFAULT_FORBIDDEN_PATHS
    )
    assert.deepStrictEqual(violations.map((v) => v.path), [
      ".github/workflows/ci.yml",
      ".github/workflows/x.yml",
      ".github/workflows/new.yml",
      ".github/workflows/old.yml"
    ])
  })

  it("refuses paths that leave the repository", () => {
    const violations = forbiddenPaths(
      [changed("../outside.txt"), file("x", "a/../../etc/passwd"), changed("/etc/passwd"), changed("a\\..\\b"), changed("ok/file.txt")],
      []
    )
    assert.deepStrictEqual(violations.map((v) => v.path), ["../outside.txt", "a/../../etc/passwd", "/etc/passwd", "a\\..\\b"])
    assert.isTrue(violations.every((v) => v.detail === "the path leaves the repository"))
  })

  it("applies the Loop's own globs, dot files included", () => {
    const violations = forbiddenPaths([changed(".env"), changed("config/.env"), changed("infra/main.tf"), changed("src/env.ts")], ["**/.env", "infra/**"])
    assert.deepStrictEqual(violations.map((v) => v.path), [".env", "config/.env", "infra/main.tf"])
  })
})

describe("changedFiles", () => {
  it("refuses more files than allowed, a rename being one file", () => {
    const files = [file("a", "b"), changed("c"), changed("d")]
    assert.deepStrictEqual(changedFiles(files, 3), [])
    assert.deepStrictEqual(changedFiles(files, undefined), [])
    assert.deepStrictEqual(changedFiles(files, 2), [{ guard: "max_changed_files", detail: "3 files changed, at most 2 allowed" }])
  })
})
