import { DEFAULT_LIMITS, type WorkerLimits } from "@usine/core/config/WorkerLimits"

/** Who the agent is inside its sandbox and what it may use (ADR 0084). */
export interface Confinement {
  /** The uid and gid the agent runs as. */
  readonly uid: number
  readonly gid: number
  /**
   * The daemon is root on the Worker's host: bwrap runs without a user namespace and the agent is switched to `uid`
   * by `setpriv` (a real unprivileged uid, not root mapped). Otherwise the agent keeps the daemon's own uid.
   */
  readonly switchUser: boolean
  readonly limits: WorkerLimits
}

/** What a Worker asks for: the uid a root daemon switches to, and the limits. */
export interface ConfinementSettings {
  readonly sandboxUid: number
  readonly limits: WorkerLimits
}

export const DEFAULT_CONFINEMENT: ConfinementSettings = { sandboxUid: 65534, limits: DEFAULT_LIMITS }

/** The Worker's settings on a host whose daemon user is `hostUid`/`hostGid`. */
export const confinementOn = (settings: ConfinementSettings, hostUid: number, hostGid: number): Confinement =>
  hostUid === 0
    ? { uid: settings.sandboxUid, gid: settings.sandboxUid, switchUser: true, limits: settings.limits }
    : { uid: hostUid, gid: hostGid, switchUser: false, limits: settings.limits }

/** What is /etc inside: only these of the host's, read-only, besides the generated `passwd`, `group` and `hosts`. */
export const ETC_ALLOWED: ReadonlyArray<string> = [
  "resolv.conf",
  "nsswitch.conf",
  "host.conf",
  "gai.conf",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "pki",
  "crypto-policies",
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "timezone"
]

/** `passwd` and `group` inside: root (so `ls -l` reads), the agent's own entry with its HOME, and nobody. */
export const etcFiles = (confinement: Confinement, home: string): { readonly passwd: string; readonly group: string } => {
  const { uid, gid } = confinement
  const name = uid === 65534 ? "nobody" : "agent"
  const group = gid === 65534 ? "nogroup" : "agent"
  const passwd = [
    "root:x:0:0:root:/root:/usr/sbin/nologin",
    `${name}:x:${uid}:${gid}:usine agent:${home}:/bin/sh`,
    ...(uid === 65534 ? [] : ["nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin"])
  ]
  const groups = ["root:x:0:", `${group}:x:${gid}:`, ...(gid === 65534 ? [] : ["nogroup:x:65534:"])]
  return { passwd: `${passwd.join("\n")}\n`, group: `${groups.join("\n")}\n` }
}

/**
 * The `sh -c` program bwrap starts before the inside script: `$1` is `switch` in a root daemon's sandbox, `$2 $3` the
 * uid and gid, then the process count, the data size (bytes), CPU seconds and largest file (bytes), then the command.
 * There (no user namespace; only CAP_CHOWN, CAP_SETUID, CAP_SETGID, CAP_SETPCAP and CAP_NET_BIND_SERVICE) it gives
 * the private /tmp and HOME (and the folders bwrap made in them, not what is bound there: `-xdev`) to the agent's uid
 * and switches to it with no supplementary group, no capability but binding :443 in its own network namespace, and no
 * new privileges. Either way it sets the rlimits, which the agent can only lower.
 */
const userScript = `s=$1; u=$2; g=$3; n=$4; d=$5; c=$6; f=$7; shift 7
if [ "$s" = switch ]; then
  command -p find /tmp "$HOME" -xdev -exec chown -h "$u:$g" {} + 2>/dev/null
  set -- "$(command -pv setpriv)" --reuid="$u" --regid="$g" --clear-groups --no-new-privs \\
    --inh-caps=-all,+net_bind_service --ambient-caps=-all,+net_bind_service --bounding-set=-all,+net_bind_service -- "$@"
fi
exec "$(command -pv prlimit)" --nproc="$n" --data="$d" --cpu="$c" --fsize="$f" --core=0 -- "$@"
`

/** The argv bwrap runs first, in front of the inside script: limits, then (root daemon) the switch to the agent's uid. */
export const confinementArgv = (confinement: Confinement): ReadonlyArray<string> => {
  const { limits } = confinement
  return [
    "/bin/sh", "-c", userScript, "usine-sandbox-user", confinement.switchUser ? "switch" : "keep",
    String(confinement.uid), String(confinement.gid),
    String(limits.processes), String(limits.memory), String(limits.cpuSeconds), String(limits.disk)
  ]
}
