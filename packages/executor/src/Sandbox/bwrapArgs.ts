import * as path from "node:path/posix"
import { type Confinement, confinementArgv, ETC_ALLOWED } from "./Confinement"

/** The namespaces every sandbox of a daemon that is not root gets; the probe's trial run uses the same. */
export const NAMESPACE_FLAGS: ReadonlyArray<string> = [
  "--unshare-all",
  "--die-with-parent",
  "--new-session",
  "--cap-drop",
  "ALL",
  // Only so the bridges can listen on :443 inside the sandbox's own network namespace.
  "--cap-add",
  "CAP_NET_BIND_SERVICE"
]

/**
 * A root daemon's sandbox (ADR 0084): the same namespaces but the user namespace, so that `setpriv` can switch to a
 * real unprivileged uid (in a user namespace bwrap would map the agent's uid to root outside); the capabilities
 * kept are only those the user script needs before the switch, which drops them all but CAP_NET_BIND_SERVICE.
 */
export const ROOT_NAMESPACE_FLAGS: ReadonlyArray<string> = [
  "--unshare-ipc",
  "--unshare-pid",
  "--unshare-net",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--die-with-parent",
  "--new-session",
  "--cap-drop",
  "ALL",
  ...["CAP_CHOWN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE"].flatMap((cap) => ["--cap-add", cap])
]

/** The host's system folders as the layout probe found them: a folder, or a symbolic link (`/bin -> usr/bin`). */
export type SystemEntry = { readonly _tag: "Folder"; readonly path: string } | { readonly _tag: "Link"; readonly path: string; readonly target: string }

interface BwrapPlan {
  readonly system: ReadonlyArray<SystemEntry>
  /** The agent's private HOME: an empty tmpfs. */
  readonly home: string
  /** Host paths bound read-only at the same place (tool installs, the objects of the Attempt's `start.git`). */
  readonly readOnly: ReadonlyArray<string>
  /** `source → target` read-only binds (login files under the private HOME). */
  readonly files: ReadonlyArray<{ readonly source: string; readonly target: string }>
  /** The session's folder, read-only inside; its `net/` holds the bridge sockets and `hosts`. */
  readonly dir: string
  /** Bound writable, after everything else (the worktree, the harness's own folders). */
  readonly writable: ReadonlyArray<string>
  readonly workdir: string
  /** Who the agent is and what it may use: tmpfs sizes here, rlimits and the uid switch in the user script. */
  readonly confinement: Confinement
}

const depth = (p: string) => p.split("/").length

/** What the sandbox mounts itself: a bound path's parents there need no folder made. */
const MOUNTED_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/dev"]

/** The folders above `paths`, outermost first, but `/`, the system folders and the private HOME. */
const parentsOf = (paths: ReadonlyArray<string>, home: string): ReadonlyArray<string> => {
  const parents = new Set<string>()
  for (const p of paths) {
    for (let parent = path.dirname(p); parent !== "/" && parent !== "."; parent = path.dirname(parent)) parents.add(parent)
  }
  const system = (p: string) => MOUNTED_FOLDERS.some((dir) => p === dir || p.startsWith(`${dir}/`))
  return [...parents]
    .filter((p) => !system(p) && p !== home && !p.startsWith(`${home}/`) && p !== "/tmp")
    .sort((a, b) => depth(a) - depth(b))
}

/**
 * bwrap's argv for one sandboxed command, up to the inside program: the user script (limits, uid) comes last. Mounts
 * go from the outermost in, so a writable worktree under a read-only or tmpfs folder stays writable; nothing of the host
 * is visible but what is listed.
 */
export const bwrapArgs = (plan: BwrapPlan): ReadonlyArray<string> => {
  const { confinement } = plan
  const args: Array<string> = ["bwrap", ...(confinement.switchUser ? ROOT_NAMESPACE_FLAGS : NAMESPACE_FLAGS)]
  for (const entry of plan.system) {
    if (entry.path === "/etc") continue
    if (entry._tag === "Link") args.push("--symlink", entry.target, entry.path)
    else args.push("--ro-bind", entry.path, entry.path)
  }
  // /etc is an allow-list, never the host's: no shadow, no host accounts, no daemon configuration.
  args.push("--perms", "0755", "--dir", "/etc")
  for (const name of ETC_ALLOWED) args.push("--ro-bind-try", `/etc/${name}`, `/etc/${name}`)
  const etc = path.join(plan.dir, "net")
  args.push("--ro-bind", path.join(etc, "passwd"), "/etc/passwd", "--ro-bind", path.join(etc, "group"), "/etc/group")
  args.push("--proc", "/proc", "--dev", "/dev")
  args.push("--perms", "01777", "--size", String(confinement.limits.tmp), "--tmpfs", "/tmp")
  args.push("--perms", "0700", "--size", String(confinement.limits.home), "--tmpfs", plan.home)
  // bwrap makes a bound path's missing parents 0700 and root's in a root daemon's sandbox: the agent's uid could not
  // reach its own worktree or the bridge sockets. They are made first, open to read and traverse (never to write).
  const bound = [...plan.readOnly, plan.dir, ...plan.writable]
  for (const parent of parentsOf(bound, plan.home)) args.push("--perms", "0755", "--dir", parent)
  const readOnly = [...new Set(plan.readOnly)].sort((a, b) => depth(a) - depth(b))
  for (const p of readOnly) args.push("--ro-bind", p, p)
  for (const file of plan.files) args.push("--ro-bind-try", file.source, file.target)
  args.push("--ro-bind", plan.dir, plan.dir)
  const writable = [...new Set(plan.writable)].sort((a, b) => depth(a) - depth(b))
  for (const p of writable) args.push("--bind", p, p)
  args.push("--ro-bind", path.join(plan.dir, "net", "hosts"), "/etc/hosts")
  args.push("--setenv", "HOME", plan.home, "--setenv", "TMPDIR", "/tmp", "--chdir", plan.workdir, "--")
  args.push(...confinementArgv(confinement))
  return args
}
