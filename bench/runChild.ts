import { spawnSync } from "node:child_process"

/** The flags this process runs with (tsx's loader, --expose-gc), so a child runs TypeScript the same way. */
const childFlags = (): ReadonlyArray<string> =>
  process.execArgv.includes("--expose-gc") ? process.execArgv : [...process.execArgv, "--expose-gc"]

/**
 * Runs a bench script in its own Node process, so its heap figures start clean, and returns the JSON it printed on
 * its last stdout line. Its stderr (progress) goes straight through, and so do its other stdout lines (logs).
 */
export const runChild = <A>(script: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}): A => {
  const result = spawnSync(process.execPath, [...childFlags(), script, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024
  })
  const lines = result.stdout.trim().split("\n")
  // Everything before the result line is the child's own logging: shown, not swallowed.
  if (lines.length > 1) process.stderr.write(`${lines.slice(0, -1).join("\n")}\n`)
  if (result.status !== 0) throw new Error(`${script} ${args.join(" ")} exited with ${result.status}\n${result.stdout}`)
  return JSON.parse(lines.at(-1) ?? "") as A
}
