import { Data, Effect, Exit, Scope } from "effect"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

/** Debian's PostgreSQL server binaries (the newest installed version); `.ci/run` installs `postgresql` when missing. */
const PG_BIN =
  process.env["USINE_PG_BIN"] ??
  path.join(
    "/usr/lib/postgresql",
    (fs.existsSync("/usr/lib/postgresql") ? fs.readdirSync("/usr/lib/postgresql") : []).sort((a, b) => Number(b) - Number(a))[0] ?? "15",
    "bin"
  )

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export const postgresMissing: string | undefined = fs.existsSync(path.join(PG_BIN, "initdb"))
  ? undefined
  : `PostgreSQL's server is not installed (no ${PG_BIN}/initdb; Debian package \`postgresql\`, as .ci/run installs)`

/** The throwaway cluster could not be started. */
class PgClusterFailed extends Data.TaggedError("PgClusterFailed")<{ readonly reason: string }> {
  override get message() {
    return `PostgreSQL test cluster: ${this.reason}`
  }
}

/** A running throwaway cluster: trust authentication for `postgres` on 127.0.0.1. */
interface PgCluster {
  readonly port: number
  /** The URL of one database of this cluster. */
  readonly url: (database: string) => string
}

const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** postgres refuses to run as root: as root (CI), the server runs as Debian's `postgres` user in folders it owns. */
const serverUser = (): { readonly uid: number; readonly gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
  return { uid, gid }
}

const asServerUser = (user: ReturnType<typeof serverUser>) =>
  user === undefined ? [] : ["setpriv", `--reuid=${user.uid}`, `--regid=${user.gid}`, "--init-groups"]

/** Settings for a cluster whose data is thrown away: nothing is synced to disk. */
const SETTINGS = ["fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=200", "listen_addresses=127.0.0.1"]

/**
 * A shell that owns the server: on SIGTERM (sent on scope close, or by the kernel when the test process dies, through
 * `--pdeathsig`) it stops the server (fast shutdown, shared memory released) and removes the cluster's folder.
 */
const SUPERVISOR = `dir="$1"; shift
"$@" & pid=$!
trap 'kill -INT $pid 2>/dev/null; wait $pid; rm -rf "$dir"; exit 0' TERM INT
wait $pid
rm -rf "$dir"`

/**
 * Starts a throwaway cluster: initdb into a fresh temp folder, the server on a free port of 127.0.0.1; stopped and its
 * folder removed when the scope closes. About half a second.
 */
export const startPgCluster: Effect.Effect<PgCluster, PgClusterFailed, Scope.Scope> = Effect.gen(function* () {
  if (postgresMissing !== undefined) return yield* new PgClusterFailed({ reason: postgresMissing })
  const user = serverUser()
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "usine-pg-")))
  const data = path.join(dir, "data")
  fs.mkdirSync(data, { mode: 0o700 })
  if (user !== undefined) fs.chownSync(data, user.uid, user.gid)
  fs.chmodSync(dir, 0o755)
  const initdb = [...asServerUser(user), path.join(PG_BIN, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]
  yield* Effect.try({
    try: () => execFileSync(initdb[0]!, initdb.slice(1), { stdio: "pipe" }),
    catch: (cause) => {
      fs.rmSync(dir, { recursive: true, force: true })
      return new PgClusterFailed({ reason: `initdb failed: ${String((cause as { stderr?: unknown }).stderr ?? cause)}` })
    }
  })
  const port = yield* freePort
  const server = [
    ...asServerUser(user),
    path.join(PG_BIN, "postgres"),
    "-D",
    data,
    "-p",
    String(port),
    "-k",
    data,
    ...SETTINGS.flatMap((setting) => ["-c", setting])
  ]
  const child = yield* Effect.acquireRelease(
    Effect.sync(() => spawn("setpriv", ["--pdeathsig", "TERM", "sh", "-c", SUPERVISOR, "sh", dir, ...server], { stdio: ["ignore", "ignore", "pipe"] })),
    (child) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  )
  yield* Effect.async<void, PgClusterFailed>((resume) => {
    let log = ""
    const ready = (chunk: Buffer) => {
      log += chunk.toString()
      if (log.includes("ready to accept connections")) {
        child.stderr?.off("data", ready)
        child.stderr?.resume()
        child.off("exit", exited)
        resume(Effect.void)
      }
    }
    const exited = () => resume(Effect.fail(new PgClusterFailed({ reason: `the server exited: ${log.trim()}` })))
    child.stderr?.on("data", ready)
    child.once("exit", exited)
  }).pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new PgClusterFailed({ reason: "the server was not ready in 30 s" }) }))
  return { port, url: (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}` }
})

/** Runs one statement on the cluster's `postgres` database with psql (no client library needed here). */
export const psql = (cluster: PgCluster, statement: string): Effect.Effect<string, PgClusterFailed> =>
  psqlOn(cluster.url("postgres"), statement)

/** Runs one statement on the database at `url` with psql; its rows, unaligned, one a line. */
export const psqlOn = (url: string, statement: string): Effect.Effect<string, PgClusterFailed> =>
  Effect.async<string, PgClusterFailed>((resume) => {
    const child = spawn(path.join(PG_BIN, "psql"), ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", statement], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
    // `close`, not `exit`: the exit can come before the last of its output has been read.
    child.on("close", (code) =>
      resume(code === 0 ? Effect.succeed(out.trim()) : Effect.fail(new PgClusterFailed({ reason: `psql ${statement}: ${err.trim()}` }))))
  })

let shared: Promise<PgCluster> | undefined
let databases = 0

/**
 * The test process's one cluster, started on first use and stopped when the process ends (its supervisor has
 * `--pdeathsig`, so even a killed worker leaves no server behind).
 */
export const sharedPgCluster: Effect.Effect<PgCluster, PgClusterFailed> = Effect.suspend(() => {
  if (shared === undefined) {
    const started = Effect.runPromise(
      Effect.flatMap(Scope.make(), (scope) =>
        Effect.either(Scope.extend(startPgCluster, scope)).pipe(
          Effect.tap(() => Effect.sync(() => process.once("exit", () => void Effect.runFork(Scope.close(scope, Exit.void)))))
        ))
    )
    shared = started.then((result) => (result._tag === "Right" ? result.right : Promise.reject(result.left)))
  }
  const cluster = shared
  return Effect.tryPromise({ try: () => cluster, catch: (cause) => cause as PgClusterFailed })
})

/**
 * A fresh database on the process's cluster for the scope: tests stay independent while sharing one server. Dropped
 * (connections closed) when the scope closes. Its URL.
 */
export const freshPgDatabase: Effect.Effect<string, PgClusterFailed, Scope.Scope> = Effect.suspend(() => freshPgDatabaseFrom(undefined))

/** As `freshPgDatabase`, a copy of `template` (a database of the same cluster that nobody is connected to). */
export const freshPgDatabaseFrom = (template: string | undefined): Effect.Effect<string, PgClusterFailed, Scope.Scope> => Effect.gen(function* () {
  const cluster = yield* sharedPgCluster
  const name = `usine_test_${process.pid}_${++databases}`
  yield* Effect.acquireRelease(psql(cluster, `CREATE DATABASE ${name}${template === undefined ? "" : ` TEMPLATE ${template}`}`), () =>
    Effect.ignore(psql(cluster, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
  return cluster.url(name)
})
