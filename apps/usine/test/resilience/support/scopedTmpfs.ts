import { execFileSync } from "node:child_process"
import { mkdirSync, statSync } from "node:fs"
import { Effect, Either } from "effect"

/**
 * A small tmpfs mounted at `dir` for the scope (a disk that really fills up), or the reason it could not be mounted:
 * mounting needs root, so a test skips what needs it rather than fail elsewhere.
 */
export const scopedTmpfs = (dir: string, size: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      mkdirSync(dir, { recursive: true })
      try {
        execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" })
        return Either.right(dir)
      } catch (error) {
        return Either.left(String((error as { stderr?: unknown }).stderr ?? error).trim())
      }
    }),
    (mounted) =>
      Either.isRight(mounted)
        ? Effect.try(() => execFileSync("umount", ["-l", dir], { stdio: "pipe" })).pipe(Effect.ignoreLogged)
        : Effect.void
  )

/** Writes one file until the disk has no room left; returns how many bytes fitted. */
export const fillDisk = (file: string): number => {
  try {
    execFileSync("sh", ["-c", 'cat /dev/zero > "$1"', "fill", file], { stdio: "pipe" })
  } catch {
    // `cat` stops with ENOSPC, which is the point.
  }
  return statSync(file).size
}
