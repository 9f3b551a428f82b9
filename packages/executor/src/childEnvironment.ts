/**
 * What of the daemon's environment a child it spawns may see (ADR 0057): where programs are and who runs them,
 * the locale and time zone, temporary files, and the ssh agent's socket (SSH Workers log in through it). Never a
 * token, a key or anything else the daemon was started with.
 */
const INHERITED = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM", "SSH_AUTH_SOCK"]

/** The allow-listed part of `from` (the daemon's `process.env`), with `extra` on top. */
export const childEnvironment = (
  extra: Readonly<Record<string, string>> = {},
  from: Readonly<Record<string, string | undefined>> = process.env
): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && (INHERITED.includes(name) || name.startsWith("LC_"))) env[name] = value
  }
  return { ...env, ...extra }
}
