import { Data, Effect } from "effect"
import * as path from "node:path/posix"
import { HostOperationFailed, type TransportError, type WorkerTransportShape } from "./WorkerTransport"
import { bwrapArgs, NAMESPACE_FLAGS, ROOT_NAMESPACE_FLAGS, type SystemEntry } from "./Sandbox/bwrapArgs"
import { type Confinement, confinementOn, type ConfinementSettings, DEFAULT_CONFINEMENT, etcFiles } from "./Sandbox/Confinement"
import { type Endpoint, planBridges } from "./Sandbox/endpoints"
import { insideScript, launcherScript } from "./Sandbox/scripts"

/** What one sandboxed command may see and reach (ADR 0054). */
export interface SandboxRequest {
  /** The session's folder on the host: read-only inside; its `net/` gets the bridge sockets and `hosts`. */
  readonly dir: string
  readonly workdir: string
  /** Bound writable: the worktree, the harness's own folders. */
  readonly writable: ReadonlyArray<string>
  /** Host paths visible read-only at the same place (the objects of the Attempt's `start.git`); `~/` is the host's home. */
  readonly readOnly: ReadonlyArray<string>
  /** Login files visible read-only under the private HOME at the same place; `~/` is the host's home. */
  readonly homeFiles: ReadonlyArray<string>
  /** Commands (names looked up on `path`, or paths) whose install is made visible read-only. */
  readonly tools: ReadonlyArray<string>
  readonly network: ReadonlyArray<Endpoint>
  /** The PATH the command runs with, to find `tools` as it would. */
  readonly path: string | undefined
  /** The command; a function of the private HOME when the command sets its own environment (`env -i`). */
  readonly argv: ReadonlyArray<string> | ((home: string) => ReadonlyArray<string>)
  /** The Worker's `sandbox_uid` and limits (ADR 0084); the defaults when absent. */
  readonly confinement?: ConfinementSettings | undefined
}

/** The sandboxed argv, run in place of the command, and the private HOME it sees. */
interface Sandboxed {
  readonly argv: ReadonlyArray<string>
  readonly home: string
  readonly confinement: Confinement
}

/** The host cannot run the sandbox: bwrap or socat is missing, or bwrap cannot create its namespaces there. */
export class SandboxUnavailable extends Data.TaggedError("SandboxUnavailable")<{
  readonly worker: string
  readonly host: string
  readonly detail: string
}> {
  override get message() {
    return `the Worker ${this.worker} (${this.host}) has no working sandbox (${this.detail}): install bubblewrap and socat there, or set \`sandbox: none\` on the Worker`
  }
}

const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"]

const isSystem = (p: string) => SYSTEM.some((dir) => p === dir || p.startsWith(`${dir}/`))

/**
 * Prints the host's layout: `U uid gid` of the daemon's user, `H home`, `D folder`, `L link target`, `T path` for a tool's path as found and its real
 * path, `M path` for where the linked packages of a tool's `node_modules` really are (pnpm's store in a workspace's
 * root `node_modules`, or a workspace package), `R expanded<TAB>realpath`.
 * `$1` is the PATH tools are looked up on, `$2` the uid a root daemon's agent runs as, `$3` a folder of the session's.
 * After the tools (up to `--`) come the read-only paths, then the login files (each up to `--`): one that uid cannot
 * read is copied into `$3`, given to it and readable by it only, and that copy is shown instead. Last come the
 * writable paths: a root daemon gives them to that uid, links not followed, so the agent can write them.
 */
const layoutScript = `h=$1; o=$2; l=$3; shift 3
while read -r k v _; do case $k in Uid:) me=$v ;; Gid:) gid=$v ;; esac; done </proc/self/status
printf 'U %s %s\\n' "$me" "$gid"
printf 'H %s\\n' "$HOME"
for p in ${SYSTEM.join(" ")}; do
  if [ -L "$p" ]; then printf 'L %s %s\\n' "$p" "$(readlink "$p")"; elif [ -d "$p" ]; then printf 'D %s\\n' "$p"; fi
done
while [ "$1" != -- ]; do
  t=$1; shift
  case $t in /*) f=$t ;; *) f=$(PATH=$h command -v "$t" 2>/dev/null) || f= ;; esac
  case $f in /*) [ -f "$f" ] && printf 'T %s\\nT %s\\n' "$f" "$(readlink -f "$f")" ;; *) continue ;; esac
  case $f in */node_modules/*)
    r=\${f%%/node_modules/*}/node_modules
    find "$r" -mindepth 1 -maxdepth 2 -type l -exec readlink -f {} + 2>/dev/null | sed 's/^/M /' ;;
  esac
done
shift
while [ "$1" != -- ]; do
  case $1 in '~/'*) e=$HOME/\${1#'~/'} ;; *) e=$1 ;; esac
  [ -e "$e" ] && printf 'R %s\\t%s\\n' "$e" "$(readlink -f "$e")"
  shift
done
shift; i=0
while [ "$1" != -- ]; do
  r=$1; shift
  case $r in '~/'*) e=$HOME/\${r#'~/'} ;; *) e=$r ;; esac
  [ -e "$e" ] || continue
  i=$((i+1)); c=$l/$i
  if [ "$me" = 0 ] && ! setpriv --reuid="$o" --regid="$o" --clear-groups sh -c '[ -r "$1" ] && { [ ! -d "$1" ] || [ -x "$1" ]; }' - "$e"; then
    rm -rf "$c" && mkdir -p "$l" && cp -RL -- "$e" "$c" && chown -R -h "$o:$o" "$c" && chmod -R go-rwx "$c" || exit 1
    printf 'R %s\\t%s\\n' "$e" "$c"
  else printf 'R %s\\t%s\\n' "$e" "$(readlink -f "$e")"
  fi
done
shift
if [ "$me" = 0 ] && [ $# -gt 0 ]; then chown -R -h -P "$o:$o" -- "$@" || exit 1; fi
exit 0
`

/** What of a tool's install is made visible: the outermost `node_modules` it lies in (its packages), else itself. */
const toolRoot = (real: string): string => {
  const at = real.indexOf("/node_modules/")
  return at < 0 ? real : real.slice(0, at + "/node_modules".length)
}

/** The private HOME: where the host's home is, so `~/` paths agree, unless that would cover a system folder. */
const homeOf = (hostHome: string) =>
  hostHome.startsWith("/") && hostHome !== "/" && !isSystem(hostHome) && !SYSTEM.some((dir) => dir.startsWith(`${hostHome}/`))
    ? path.normalize(hostHome)
    : "/home/usine-agent"

/**
 * Wraps a command in a bubblewrap sandbox on the Worker's host: every namespace of its own (no view of the host's
 * processes, no network but the bridges), the system folders and the listed paths read-only, the writable ones
 * writable, an empty private HOME and /tmp, and a `socat` bridge per allowed endpoint. Nothing else of the host is
 * visible: the daemon's config, ledger and token file, the `mirrors/`, other Attempts, `harvest/`, `credentials/`, /home,
 * /root.
 * When the command ends, every process it left ends with its PID namespace.
 */
export const sandboxCommand = Effect.fn("Sandbox.command")(function* (
  transport: WorkerTransportShape,
  request: SandboxRequest
): Effect.fn.Return<Sandboxed, TransportError> {
  const settings = request.confinement ?? DEFAULT_CONFINEMENT
  const probed = yield* transport.exec({
    argv: [
      "sh", "-c", layoutScript, "usine-sandbox-layout", request.path ?? "/usr/bin:/bin", String(settings.sandboxUid),
      path.join(request.dir, "login"), ...request.tools, "--", ...request.readOnly, "--", ...request.homeFiles, "--", ...request.writable
    ],
    timeoutMs: 120_000
  })
  if (probed.exitCode !== 0) {
    return yield* new HostOperationFailed({ host: transport.host, operation: "prepare the sandbox", detail: probed.stderr.trim().slice(0, 500) })
  }
  const lines = probed.stdout.split("\n").filter((line) => line !== "")
  const field = (line: string, n: number) => line.split(" ")[n] ?? ""
  const user = (lines.find((line) => line.startsWith("U ")) ?? "U 0 0").split(" ")
  const confinement = confinementOn(settings, Number(user[1]), Number(user[2]))
  const hostHome = (lines.find((line) => line.startsWith("H ")) ?? "H /").slice(2)
  const home = homeOf(hostHome)
  const system: Array<SystemEntry> = lines.flatMap((line): Array<SystemEntry> =>
    line.startsWith("D ") ? [{ _tag: "Folder", path: field(line, 1) }] : line.startsWith("L ") ? [{ _tag: "Link", path: field(line, 1), target: field(line, 2) }] : []
  )
  // A linked package counts only where it lies in a `node_modules`: a workspace's own packages stay hidden.
  const tools = lines
    .filter((line) => line.startsWith("T ") || (line.startsWith("M ") && line.includes("/node_modules/")))
    .map((line) => toolRoot(line.slice(2)))
    .filter((p) => !isSystem(p))
  const resolved = new Map(
    lines.filter((line) => line.startsWith("R ")).map((line) => [line.slice(2, line.indexOf("\t")), line.slice(line.indexOf("\t") + 1)] as const)
  )
  const expand = (p: string) => (p.startsWith("~/") ? path.join(hostHome, p.slice(2)) : p)
  const readOnly = request.readOnly.map(expand).flatMap((p) => (resolved.has(p) ? [resolved.get(p) ?? p] : []))
  const files = request.homeFiles.map(expand).flatMap((target) => {
    const source = resolved.get(target)
    return source === undefined ? [] : [{ source, target: target.startsWith(`${hostHome}/`) ? path.join(home, target.slice(hostHome.length + 1)) : target }]
  })

  const net = path.join(request.dir, "net")
  const { bridges, hosts } = planBridges(request.network)
  yield* transport.makeDirectory(net)
  yield* transport.writeFile(path.join(net, "hosts"), hosts)
  const etc = etcFiles(confinement, home)
  yield* transport.writeFile(path.join(net, "passwd"), etc.passwd)
  yield* transport.writeFile(path.join(net, "group"), etc.group)
  const bwrap = bwrapArgs({
    system, home, readOnly: [...tools, ...readOnly], files, dir: request.dir, writable: request.writable, workdir: request.workdir, confinement
  })
  return {
    home,
    confinement,
    argv: [
      "/bin/sh", "-c", launcherScript, "usine-sandbox", net, confinement.switchUser ? String(confinement.uid) : "",
      ...bridges.flatMap((b) => [b.socket, b.target]), "--",
      ...bwrap,
      "/bin/sh", "-c", insideScript, "usine-sandbox-inside", net,
      ...bridges.flatMap((b) => [b.socket, b.bind, String(b.port)]), "--",
      ...(typeof request.argv === "function" ? request.argv(home) : request.argv)
    ]
  }
})

/**
 * Whether the host can run the sandbox: bwrap and socat on PATH, and a trial `bwrap … true` with the sandbox's own
 * namespace flags succeeds (a kernel without unprivileged user namespaces fails it). `undefined` when it can.
 */
export const probeSandbox = Effect.fn("Sandbox.probe")(function* (
  transport: WorkerTransportShape
): Effect.fn.Return<string | undefined, TransportError> {
  const trial = yield* transport.exec({
    argv: [
      "sh",
      "-c",
      `for b in bwrap socat; do command -v $b >/dev/null 2>&1 || { echo "$b is not installed"; exit 1; }; done
if [ "$(id -u)" = 0 ]; then flags="${ROOT_NAMESPACE_FLAGS.join(" ")}"; need="prlimit setpriv"; else flags="${NAMESPACE_FLAGS.join(" ")}"; need=prlimit; fi
for b in $need; do command -v $b >/dev/null 2>&1 || { echo "$b (util-linux) is not installed"; exit 1; }; done
out=$(bwrap $flags --ro-bind / / --proc /proc --dev /dev --size 1048576 --tmpfs /tmp true 2>&1) || { printf 'bwrap cannot create its namespaces: %s\\n' "$out" | head -1; exit 1; }`
    ],
    timeoutMs: 30_000
  })
  return trial.exitCode === 0 ? undefined : (trial.stdout || trial.stderr).trim().split("\n")[0] || `exit ${trial.exitCode}`
})
