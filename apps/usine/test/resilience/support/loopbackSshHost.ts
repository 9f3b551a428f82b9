import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { sshServer } from "../../../../../packages/executor/test/sshServer"

/**
 * An OpenSSH server on 127.0.0.1 standing in for a remote host, named `host` in an ssh config of its own. The
 * daemon's ssh reads that config through a wrapper first on `PATH` (pass `env` to the daemon); the user's own
 * ssh config is left alone.
 */
export const loopbackSshHost = (dir: string, host: string) =>
  Effect.gen(function* () {
    const sshDir = join(dir, "ssh")
    mkdirSync(sshDir)
    const server = yield* sshServer(sshDir)
    writeFileSync(
      join(sshDir, "config"),
      `Host ${host}\n  HostName 127.0.0.1\n  Port ${server.port}\n  User ${process.env["USER"] ?? "root"}\n  IdentityFile ${join(sshDir, "client_key")}\n  UserKnownHostsFile ${server.knownHosts}\n`
    )
    const bin = join(dir, "bin")
    mkdirSync(bin)
    writeFileSync(join(bin, "ssh"), `#!/bin/sh\nexec /usr/bin/ssh -F '${join(sshDir, "config")}' "$@"\n`)
    chmodSync(join(bin, "ssh"), 0o755)
    return { server, sshConfig: join(sshDir, "sshd_config"), env: { PATH: `${bin}:${process.env["PATH"] ?? ""}` } }
  })
