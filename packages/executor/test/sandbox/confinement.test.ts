import { assert, describe, it } from "@effect/vitest"
import { DEFAULT_LIMITS } from "@usine/core/config/WorkerLimits"
import { bwrapArgs } from "../../src/Sandbox/bwrapArgs"
import { confinementOn, etcFiles } from "../../src/Sandbox/Confinement"
import { describeLimits, describeUser } from "../../src/Sandbox/probeLimits"

const settings = { sandboxUid: 64_000, limits: { ...DEFAULT_LIMITS, tmp: 64 * 1024 ** 2, processes: 32 } }

const plan = (hostUid: number) => ({
  system: [{ _tag: "Folder" as const, path: "/usr" }, { _tag: "Folder" as const, path: "/etc" }, { _tag: "Link" as const, path: "/bin", target: "usr/bin" }],
  home: "/root",
  readOnly: ["/srv/ws/mirrors/a.git/objects"],
  files: [],
  dir: "/srv/ws/attempts/x/turn-1",
  writable: ["/srv/ws/attempts/x/worktree"],
  workdir: "/srv/ws/attempts/x/worktree",
  confinement: confinementOn(settings, hostUid, hostUid)
})

describe("the sandbox's confinement (ADR 0084)", () => {
  it("a root daemon's agent is switched to sandbox_uid without a user namespace; another daemon's keeps its uid in one", () => {
    const root = bwrapArgs(plan(0))
    assert.notInclude(root, "--unshare-all")
    assert.notInclude(root, "--unshare-user")
    assert.includeMembers([...root], ["--unshare-pid", "--unshare-net", "CAP_SETUID"])
    assert.deepStrictEqual(root.slice(root.indexOf("usine-sandbox-user") + 1), ["switch", "64000", "64000", "32", String(DEFAULT_LIMITS.memory), "3600", String(DEFAULT_LIMITS.disk)])
    const user = bwrapArgs(plan(1000))
    assert.include(user, "--unshare-all")
    assert.notInclude(user, "CAP_SETUID")
    assert.deepStrictEqual(user.slice(user.indexOf("usine-sandbox-user") + 1, user.indexOf("usine-sandbox-user") + 4), ["keep", "1000", "1000"])
  })

  it("/etc is the allow-list and the generated files, never the host's; /tmp and HOME are sized", () => {
    const args = bwrapArgs(plan(0))
    const pairs = args.flatMap((arg, i) => (arg === "--ro-bind" || arg === "--ro-bind-try" ? [`${args[i + 1]} ${args[i + 2]}`] : []))
    assert.notInclude(pairs, "/etc /etc")
    assert.include(pairs, "/srv/ws/attempts/x/turn-1/net/passwd /etc/passwd")
    assert.include(pairs, "/etc/ssl /etc/ssl")
    assert.isFalse(pairs.some((pair) => pair.includes("shadow")))
    const sized = args.flatMap((arg, i) => (arg === "--size" ? [`${args[i + 1]} ${args[i + 3]}`] : []))
    assert.deepStrictEqual(sized, [`${64 * 1024 ** 2} /tmp`, `${DEFAULT_LIMITS.home} /root`])
    // The bound paths' parents are open to traverse: the agent's uid reaches its worktree and the bridge sockets.
    assert.include(args.join(" "), "--perms 0755 --dir /srv/ws/attempts")
  })

  it("passwd names root, the agent with its HOME, and nobody", () => {
    assert.strictEqual(
      etcFiles(confinementOn(settings, 0, 0), "/root").passwd,
      "root:x:0:0:root:/root:/usr/sbin/nologin\nagent:x:64000:64000:usine agent:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    )
    assert.strictEqual(etcFiles(confinementOn({ ...settings, sandboxUid: 65534 }, 0, 0), "/h").group, "root:x:0:\nnogroup:x:65534:\n")
  })

  it("says who the agent is and which mechanism enforces what", () => {
    assert.strictEqual(describeUser(settings, { uid: 0, cgroup: "v1" }), "uid 64000 (the daemon is root there: setpriv switches to it)")
    assert.strictEqual(describeUser(settings, { uid: 1000, cgroup: "v2" }), "the daemon's own uid 1000 (not root)")
    assert.strictEqual(
      describeLimits(settings, { uid: 0, cgroup: "v1" }),
      "rlimits by prlimit (this host has cgroup v1 only): memory 4 GiB a process, 32 processes of the agent's uid, 3600 s CPU a process, files up to 10 GiB; tmpfs /tmp 64 MiB, HOME 1 GiB; worktree up to 10 GiB at harvest"
    )
  })
})
