import { launchdLabel, launchdLogPaths, launchdPlist, launchdPlistPath } from "./launchdPlist"
import type { ServiceSpec } from "./ServiceSpec"
import { systemdUnit, systemdUnitPath, systemdWantsLink } from "./systemdUnit"

type Env = Readonly<Record<string, string | undefined>>

/** A service manager as `usine service` drives it: where its file goes, what it holds, and what to run next. */
interface ServiceManager {
  readonly file: (env: Env, name: string) => string
  /** Folders to create beside the file (launchd's log folder). */
  readonly folders: (env: Env, name: string) => ReadonlyArray<string>
  readonly render: (spec: ServiceSpec, env: Env) => string
  /** Files the manager made from ours that go with it (systemd's enablement link). */
  readonly leftovers: (env: Env, name: string) => ReadonlyArray<string>
  readonly afterInstall: (file: string, name: string, env: Env) => ReadonlyArray<string>
  readonly afterUninstall: (name: string) => ReadonlyArray<string>
}

const systemd: ServiceManager = {
  file: systemdUnitPath,
  folders: () => [],
  render: (spec) => systemdUnit(spec),
  leftovers: (env, name) => [systemdWantsLink(env, name)],
  afterInstall: (_file, name) => [
    "start it now and at each login:",
    "  systemctl --user daemon-reload",
    `  systemctl --user enable --now ${name}.service`,
    `its logs: journalctl --user -u ${name}.service -f`,
    "to keep it running while you are logged out: loginctl enable-linger \"$USER\"",
    `secrets such as GITHUB_TOKEN: usine.env beside usine.yaml (NAME=value lines, chmod 600), or github.token_file`
  ],
  afterUninstall: (name) => [`if it is running, stop it (it drains first): systemctl --user stop ${name}.service && systemctl --user daemon-reload`]
}

const launchd: ServiceManager = {
  file: launchdPlistPath,
  folders: (env, name) => [launchdLogPaths(env, name).stdout.replace(/\/[^/]+$/, "")],
  render: (spec, env) => launchdPlist(spec, launchdLogPaths(env, spec.name)),
  leftovers: () => [],
  afterInstall: (file, name, env) => [
    "start it now and at each login:",
    `  launchctl bootstrap gui/$(id -u) ${file}`,
    `its logs: tail -f ${launchdLogPaths(env, name).stdout} ${launchdLogPaths(env, name).stderr}`,
    "secrets such as GITHUB_TOKEN: github.token_file in usine.yaml (launchd passes no shell environment)"
  ],
  afterUninstall: (name) => [`if it is running, stop it (it drains first): launchctl bootout gui/$(id -u)/${launchdLabel(name)}`]
}

export const serviceManagers = { systemd, launchd } as const

/** The platform's manager: launchd on macOS, systemd elsewhere. */
export const platformManager = (platform: NodeJS.Platform): keyof typeof serviceManagers => (platform === "darwin" ? "launchd" : "systemd")
