import * as path from "node:path/posix"

/** The namespaces and limits every sandbox gets; the probe's trial run uses the same. */
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

/** The host's system folders as the layout probe found them: a folder, or a symbolic link (`/bin -> usr/bin`). */
export type SystemEntry = { readonly _tag: "Folder"; readonly path: string } | { readonly _tag: "Link"; readonly path: string; readonly target: string }

export interface BwrapPlan {
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
}

const depth = (p: string) => p.split("/").length

/**
 * bwrap's argv for one sandboxed command, up to and including the `--` before the inside program. Mounts go from
 * the outermost in, so a writable worktree under a read-only or tmpfs folder stays writable; nothing of the host
 * is visible but what is listed.
 */
export const bwrapArgs = (plan: BwrapPlan): ReadonlyArray<string> => {
  const args: Array<string> = ["bwrap", ...NAMESPACE_FLAGS]
  for (const entry of plan.system) {
    if (entry._tag === "Link") args.push("--symlink", entry.target, entry.path)
    else args.push("--ro-bind", entry.path, entry.path)
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", plan.home)
  const readOnly = [...new Set(plan.readOnly)].sort((a, b) => depth(a) - depth(b))
  for (const p of readOnly) args.push("--ro-bind", p, p)
  for (const file of plan.files) args.push("--ro-bind-try", file.source, file.target)
  args.push("--ro-bind", plan.dir, plan.dir)
  const writable = [...new Set(plan.writable)].sort((a, b) => depth(a) - depth(b))
  for (const p of writable) args.push("--bind", p, p)
  args.push("--ro-bind", path.join(plan.dir, "net", "hosts"), "/etc/hosts")
  args.push("--setenv", "HOME", plan.home, "--setenv", "TMPDIR", "/tmp", "--chdir", plan.workdir, "--")
  return args
}
