import { hostname } from "node:os"
import type { ShellRunner } from "../../src/ShellTransport"
import { runProcess } from "../../src/runProcess"

/** Runs the shell transport's scripts with the local `sh`: the SSH path minus the connection, for tests. */
export const localShellRunner = (host: string = hostname()): ShellRunner => ({
  host,
  run: (script, options) => runProcess(host, { argv: ["sh", "-s"], stdin: script, timeoutMs: options?.timeoutMs, maxOutputBytes: options?.maxOutputBytes }),
  argvFor: (commandLine) => ["sh", "-c", commandLine]
})
