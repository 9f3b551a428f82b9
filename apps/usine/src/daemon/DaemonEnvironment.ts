import { isSecretName } from "./daemonSecrets"

type Environment = Readonly<Record<string, string | undefined>>

let started: Environment | undefined

/**
 * The environment usine started with. Once `withholdSecrets` ran, it lives only here, in the daemon's memory:
 * usine.yaml's `${NAME}` (at a reload too) and an Agent's `env` grants read it; `process.env`, which every library's
 * child process inherits by default, no longer holds a credential.
 */
export const daemonEnvironment = (): Environment => started ?? process.env

/**
 * Takes the daemon's credentials out of `process.env` before any child starts (ADR 0057): `GITHUB_TOKEN`,
 * `GH_TOKEN`, every credential-named variable (`OPENAI_API_KEY`, `DB_PASSWORD`) and every variable holding one of
 * `secrets` (the Board token read through `${…}`, say). `/proc/<daemon>/environ` still shows what the kernel
 * was given at exec; what the daemon spawns from now on does not inherit them. Idempotent.
 */
export const withholdSecrets = (secrets: ReadonlyArray<string>): Environment => {
  started ??= Object.freeze({ ...process.env })
  const values = new Set(secrets)
  for (const [name, value] of Object.entries(process.env)) {
    if (name === "GITHUB_TOKEN" || name === "GH_TOKEN" || isSecretName(name) || (value !== undefined && values.has(value))) {
      delete process.env[name]
    }
  }
  return started
}
