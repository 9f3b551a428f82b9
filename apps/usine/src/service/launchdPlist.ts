import { homedir } from "node:os"
import { join } from "node:path"
import type { ServiceSpec } from "./ServiceSpec"

/** The agent's label: `local.` as launchd's convention for agents a user made, then the service's name. */
export const launchdLabel = (name: string) => `local.usine.${name}`

const home = (env: Readonly<Record<string, string | undefined>>) => env["HOME"] ?? homedir()

/** The agent's file: `~/Library/LaunchAgents/<label>.plist`. */
export const launchdPlistPath = (env: Readonly<Record<string, string | undefined>>, name: string) =>
  join(home(env), "Library", "LaunchAgents", `${launchdLabel(name)}.plist`)

/** Where launchd writes the daemon's stdout and stderr (launchd keeps no journal of its own). */
export const launchdLogPaths = (env: Readonly<Record<string, string | undefined>>, name: string) => ({
  stdout: join(home(env), "Library", "Logs", "usine", `${name}.log`),
  stderr: join(home(env), "Library", "Logs", "usine", `${name}.err.log`)
})

const xml = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;")
const string = (text: string) => `<string>${xml(text)}</string>`

/**
 * The launchd agent running `usine up`: started at login, restarted when it exits with a failure
 * (`KeepAlive.SuccessfulExit = false`; a drained stop exits 0), at most every 10 s. `launchctl bootout` sends SIGTERM,
 * which drains, and SIGKILL after `ExitTimeOut`; `AbandonProcessGroup` leaves the agents' detached sessions alone
 * (ADR 0014), for the next start to reattach.
 */
export const launchdPlist = (spec: ServiceSpec, logs: { readonly stdout: string; readonly stderr: string }): string =>
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  ${string(launchdLabel(spec.name))}`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...[spec.node, spec.bin, "up", "--config", spec.configFile].map((arg) => `    ${string(arg)}`),
    "  </array>",
    "  <key>WorkingDirectory</key>",
    `  ${string(spec.workingDirectory)}`,
    "  <key>EnvironmentVariables</key>",
    "  <dict>",
    "    <key>PATH</key>",
    `    ${string(spec.path)}`,
    "  </dict>",
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    "  <dict>",
    "    <key>SuccessfulExit</key>",
    "    <false/>",
    "  </dict>",
    "  <key>ThrottleInterval</key>",
    "  <integer>10</integer>",
    "  <key>ExitTimeOut</key>",
    `  <integer>${spec.stopTimeoutSeconds}</integer>`,
    "  <key>AbandonProcessGroup</key>",
    "  <true/>",
    "  <key>ProcessType</key>",
    "  <string>Background</string>",
    "  <key>StandardOutPath</key>",
    `  ${string(logs.stdout)}`,
    "  <key>StandardErrorPath</key>",
    `  ${string(logs.stderr)}`,
    "</dict>",
    "</plist>",
    ""
  ].join("\n")
