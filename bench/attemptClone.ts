import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as LocalTransport from "@usine/executor/LocalTransport"
import * as Workspace from "@usine/executor/Workspace"
import { makeStartRepo } from "@usine/executor/Workspace/startRepo"
import { runGit } from "@usine/executor/Workspace/runGit"
import { emitReport } from "./BenchReport"
import { median } from "./throughput/median"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

/** Attempts measured per repository, after one unmeasured warm-up. */
const RUNS = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? "") || 20
const COMMITS = Number(process.argv[process.argv.indexOf("--commits") + 1] ?? "") || 5000

const SAMPLE = fileURLToPath(new URL("../apps/usine/demo/sample-repo", import.meta.url))
const transport = LocalTransport.make()

/**
 * CPU milliseconds (user and system) of every child process this one has waited for, from `/proc/self/stat`
 * (cutime, cstime, in clock ticks of 10 ms): git and what it runs, whatever the load makes of the wall time.
 */
const childCpuMs = (): number => {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? []
  return (Number(fields[13]) + Number(fields[14])) * 10
}

const sh = (cwd: string, args: ReadonlyArray<string>, input?: string) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    ...(input === undefined ? {} : { input }),
    env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@x.invalid", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@x.invalid" }
  }).trim()

/** The demo's sample repository as one commit on `main`, plus a branch of another file. */
const demoOrigin = (dir: string) => {
  const work = join(dir, "demo-work")
  cpSync(SAMPLE, work, { recursive: true })
  sh(work, ["init", "--quiet", "--initial-branch=main"])
  sh(work, ["add", "."])
  sh(work, ["commit", "--quiet", "-m", "sample"])
  sh(work, ["checkout", "--quiet", "-b", "other"])
  sh(work, ["commit", "--quiet", "--allow-empty", "-m", "other"])
  sh(dir, ["clone", "--quiet", "--bare", work, join(dir, "demo.git")])
  return join(dir, "demo.git")
}

/** `commits` commits on `main`, each rewriting one of 500 files of 40 lines, and 20 other branches of 50 commits. */
const largeOrigin = (dir: string, commits: number) => {
  const bare = join(dir, "large.git")
  sh(dir, ["init", "--quiet", "--bare", "--initial-branch=main", bare])
  const stream: Array<string> = []
  const commit = (ref: string, n: number, from: string | undefined) => {
    const file = `src/file-${n % 500}.txt`
    const content = Array.from({ length: 40 }, (_, line) => `line ${line} of ${file}, revision ${n}`).join("\n") + "\n"
    const message = `commit ${n}\n`
    stream.push(
      `commit ${ref}`,
      `mark :${n + 1}`,
      `committer b <b@x.invalid> ${1_700_000_000 + n} +0000`,
      `data ${Buffer.byteLength(message)}`,
      message.trimEnd(),
      ...(from === undefined ? [] : [`from ${from}`]),
      `M 100644 inline ${file}`,
      `data ${Buffer.byteLength(content)}`,
      content.trimEnd(),
      ""
    )
  }
  for (let n = 0; n < commits; n++) commit("refs/heads/main", n, n === 0 ? undefined : `:${n}`)
  for (let b = 0; b < 20; b++) {
    for (let i = 0; i < 50; i++) {
      const n = commits + b * 50 + i
      commit(`refs/heads/branch-${b}`, n, i === 0 ? `:${commits - 100 * b}` : `:${n}`)
    }
  }
  sh(bare, ["fast-import", "--quiet"], `${stream.join("\n")}\n`)
  sh(bare, ["repack", "-a", "-d", "-q"])
  return bare
}

const measure = (name: string, root: string, origin: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace.make({ transport, root })
    const repository = `acme/${name}`
    const firstStarted = performance.now()
    yield* Effect.scoped(workspace.acquire({ attemptId: `${name}/first`, repository, cloneUrl: origin, ref: "main" }))
    const first = performance.now() - firstStarted
    const mirror = join(root, "mirrors", `acme__${name}.git`)
    const base = (yield* runGit(transport, [`--git-dir=${mirror}`, "rev-parse", "main"])).trim()

    const acquire: Array<number> = []
    const start: Array<number> = []
    const clone: Array<number> = []
    const shared: Array<number> = []
    const cpu = { start: 0, clone: 0, shared: 0 }
    const since = (began: number) => performance.now() - began
    for (let i = 0; i <= RUNS; i++) {
      const began = performance.now()
      yield* Effect.scoped(workspace.acquire({ attemptId: `${name}/${i}`, repository, cloneUrl: origin, ref: "main" }))
      const acquired = since(began)

      const dir = join(root, "probe")
      rmSync(dir, { recursive: true, force: true })
      mkdirSync(dir, { recursive: true })
      const startCpu = childCpuMs()
      const startBegan = performance.now()
      yield* makeStartRepo({ transport, mirror, start: join(dir, "start.git"), shas: [base], branch: { name: "main", sha: base }, timeoutMs: 600_000 })
      const started = since(startBegan)
      const cloneCpu = childCpuMs()
      // The clone as `Workspace` makes it, borrowing start.git.
      const cloneBegan = performance.now()
      yield* runGit(transport, ["clone", "--quiet", "--shared", "--no-checkout", "--no-hardlinks", join(dir, "start.git"), join(dir, "clone")])
      yield* runGit(transport, ["-C", join(dir, "clone"), "checkout", "--quiet", "--detach", base])
      const cloned = since(cloneBegan)
      const sharedCpu = childCpuMs()
      // What every Attempt's clone cost before ADR 0083: borrowing the whole mirror.
      const sharedBegan = performance.now()
      yield* runGit(transport, ["clone", "--quiet", "--shared", "--no-checkout", "--no-hardlinks", mirror, join(dir, "shared")])
      yield* runGit(transport, ["-C", join(dir, "shared"), "checkout", "--quiet", "--detach", base])
      const sharedMs = since(sharedBegan)
      if (i > 0) {
        cpu.start += cloneCpu - startCpu
        cpu.clone += sharedCpu - cloneCpu
        cpu.shared += childCpuMs() - sharedCpu
        acquire.push(acquired)
        start.push(started)
        clone.push(cloned)
        shared.push(sharedMs)
      }
    }
    const size = sh(root, ["--git-dir", mirror, "count-objects", "-v"]).match(/size-pack: (\d+)/)?.[1] ?? "?"
    const perRun = (ms: number) => (ms / RUNS).toFixed(0)
    return {
      name, first, acquire: median(acquire), start: median(start), clone: median(clone), shared: median(shared), size,
      cpu: `${perRun(cpu.start)} + ${perRun(cpu.clone)} (was ${perRun(cpu.shared)})`,
      cpuTotal: (cpu.start + cpu.clone) / RUNS
    }
  })

const program = Effect.gen(function* () {
  const dir = yield* scopedTempDir("usine-bench-clone-")
  const demo = yield* measure("demo", join(dir, "demo-root"), demoOrigin(dir))
  const large = yield* measure("large", join(dir, "large-root"), largeOrigin(dir, COMMITS))
  const rows = [demo, large].map((r) => [
    r.name === "demo" ? "demo sample repository (1 commit)" : `${COMMITS} commits, 500 files, 20 more branches`,
    `${r.size} KiB`,
    r.first,
    r.acquire,
    r.start,
    r.clone,
    r.start + r.clone,
    r.shared,
    r.cpu
  ])
  const worst = Math.max(demo.start + demo.clone, large.start + large.clone)
  const worstCpu = Math.max(demo.cpuTotal, large.cpuTotal)
  emitReport({
    bench: "attemptClone",
    tables: [
      {
        title: `An Attempt's workspace on a local Worker (median of ${RUNS}, ms)`,
        columns: ["repository", "mirror pack", "first acquire (mirror made)", "acquire (fetch included)", "start.git", "clone + checkout", "new clone in all", "was: clone of the mirror + checkout", "CPU: start.git + clone (was)"],
        rows
      }
    ],
    targets: [
      { name: "per-Attempt clone (start.git, clone, checkout), wall", target: "< 300 ms", measured: `${worst.toFixed(1)} ms`, met: worst < 300 },
      { name: "per-Attempt clone (start.git, clone, checkout), CPU", target: "< 300 ms", measured: `${worstCpu.toFixed(0)} ms`, met: worstCpu < 300 }
    ],
    notes: [
      "The origin is a local bare repository: the acquire's fetch is git's, without a network; it was paid before ADR 0083 too.",
      "`start.git` is `init`, `pack-objects --revs` of the base from the mirror's bitmapped pack (ADR 0083) and `update-ref`.",
      "CPU is the mean per Attempt of git's user and system time (the children's, from /proc/self/stat, 10 ms ticks): it does not grow with the load."
    ]
  })
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
