import { join } from "node:path"
import { type ServiceSpec, xdgConfigHome } from "./ServiceSpec"

/** `%` starts a systemd specifier everywhere in a unit file: a literal one is `%%`. */
const specifiersEscaped = (text: string) => text.replaceAll("%", "%%")

/** A value systemd reads as one word: quoted when it holds a space, a quote or a backslash. */
const word = (text: string) => {
  const escaped = specifiersEscaped(text)
  return /[\s"'\\]/.test(escaped) ? `"${escaped.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"` : escaped
}

/** One word of ExecStart, where systemd also expands `$NAME`: a literal `$` is `$$`. */
const execWord = (text: string) => word(text.replaceAll("$", "$$$$"))

/** The user unit's file: `$XDG_CONFIG_HOME/systemd/user/<name>.service`. */
export const systemdUnitPath = (env: Readonly<Record<string, string | undefined>>, name: string) =>
  join(xdgConfigHome(env), "systemd", "user", `${name}.service`)

/** Where `systemctl --user enable` links the unit: removed with it, so an uninstalled unit is not wanted at login. */
export const systemdWantsLink = (env: Readonly<Record<string, string | undefined>>, name: string) =>
  join(xdgConfigHome(env), "systemd", "user", "default.target.wants", `${name}.service`)

/**
 * The systemd user unit running `usine up`. SIGTERM drains (serveDaemon): admission closes, running Attempts finish,
 * then the daemon exits 0. `KillMode=process` signals the daemon alone: the agents' sessions run detached in their
 * own process groups (ADR 0014) and must not be stopped beside it, nor killed after TimeoutStopSec; the next start
 * reattaches them. Restarts on failure, five times in five minutes at most (a bad usine.yaml fails every start).
 */
export const systemdUnit = (spec: ServiceSpec): string =>
  [
    "[Unit]",
    `Description=usine daemon (${specifiersEscaped(spec.configFile)})`,
    "StartLimitIntervalSec=300",
    "StartLimitBurst=5",
    "",
    "[Service]",
    "Type=exec",
    `WorkingDirectory=${specifiersEscaped(spec.workingDirectory)}`,
    `ExecStart=${[spec.node, spec.bin, "up", "--config", spec.configFile].map(execWord).join(" ")}`,
    // Secrets (GITHUB_TOKEN, the Agents' keys) from an optional file beside usine.yaml, its owner's only.
    `EnvironmentFile=-${specifiersEscaped(`${spec.workingDirectory}/usine.env`)}`,
    `Environment=${word(`PATH=${spec.path}`)}`,
    "Restart=on-failure",
    "RestartSec=5s",
    "KillMode=process",
    "KillSignal=SIGTERM",
    `TimeoutStopSec=${spec.stopTimeoutSeconds}`,
    "StandardOutput=journal",
    "StandardError=journal",
    `SyslogIdentifier=${spec.name}`,
    "",
    "[Install]",
    "WantedBy=default.target",
    ""
  ].join("\n")
