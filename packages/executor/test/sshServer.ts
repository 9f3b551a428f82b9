import { Effect } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"

// Under CI=true (where .ci/run installs OpenSSH) a missing sshd fails the SSH suites instead of skipping them.
export const sshdAvailable = (fs.existsSync("/usr/sbin/sshd") && process.getuid?.() === 0) || process.env["CI"] === "true"

const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * An OpenSSH server on 127.0.0.1 with keys generated in `dir`, for the current user; the scope stops it.
 * Returns the ssh options a client needs: port, identity, and a known_hosts file holding the server's key.
 * `setEnv` adds variables to every session (`BASH_ENV` stands in for a login shell slow to start).
 */
export const sshServer = (dir: string, settings: { readonly setEnv?: Readonly<Record<string, string>> } = {}) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const keygen = (file: string) => execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", file])
    keygen(path.join(dir, "host_key"))
    keygen(path.join(dir, "client_key"))
    fs.copyFileSync(path.join(dir, "client_key.pub"), path.join(dir, "authorized_keys"))
    const hostKey = fs.readFileSync(path.join(dir, "host_key.pub"), "utf8").trim()
    const knownHosts = path.join(dir, "known_hosts")
    fs.writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostKey}\n`)
    fs.writeFileSync(
      path.join(dir, "sshd_config"),
      [
        `Port ${port}`,
        "ListenAddress 127.0.0.1",
        `HostKey ${path.join(dir, "host_key")}`,
        `AuthorizedKeysFile ${path.join(dir, "authorized_keys")}`,
        `PidFile ${path.join(dir, "sshd.pid")}`,
        "PermitRootLogin prohibit-password",
        "PasswordAuthentication no",
        "StrictModes no",
        "UsePAM no",
        "MaxSessions 50",
        "MaxStartups 50",
        // sshd runs each command through the user's login shell; bash started by sshd reads ~/.bashrc unless it is
        // nested (SHLVL ≥ 1). A machine whose root .bashrc runs `pyenv init` spends about 600 ms there on every
        // command: the tests measure usine, not the host's shell start-up (README, `workers.<name>.host`).
        `SetEnv SHLVL=1${Object.entries(settings.setEnv ?? {}).map(([name, value]) => ` ${name}=${value}`).join("")}`
      ].join("\n")
    )
    fs.mkdirSync("/run/sshd", { recursive: true, mode: 0o755 })
    yield* Effect.acquireRelease(
      Effect.async<ChildProcess>((resume) => {
        const sshd = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", path.join(dir, "sshd_config")], {
          stdio: ["ignore", "ignore", "pipe"]
        })
        sshd.stderr.on("data", (chunk: Buffer) => {
          if (chunk.toString().includes("Server listening")) resume(Effect.succeed(sshd))
        })
        return Effect.sync(() => sshd.kill())
      }).pipe(Effect.timeout("10 seconds"), Effect.orDie),
      (sshd) => Effect.sync(() => sshd.kill())
    )
    const options = ["-F", "/dev/null", "-p", String(port), "-i", path.join(dir, "client_key"), "-o", `UserKnownHostsFile=${knownHosts}`]
    return { destination: `${process.env.USER ?? "root"}@127.0.0.1`, options, knownHosts, port }
  })
