import { join } from "node:path"
import { cliArgv } from "./cliArgv"
import { CODEX_SEED_ROLLOUT, codexChannel, codexSeedRollout, codexSessionStart, codexThreadId } from "./codexAppServer"
import { codexAppServerParser } from "./codexAppServerParser"
import { codexInterrupt } from "./codexInterrupt"
import { type Harness, MODEL_PROVIDER_KEY_VARIABLE, type ModelProvider } from "./Harness"
import { jsonLine, obj, str } from "./jsonLine"
import { processExitFailure } from "./processExitFailure"

/** Codex's own retry loop when the model server is unreachable; it never gives up by itself. */
const RECONNECTING = /^Reconnecting\.\.\./

/**
 * `codex app-server` (JSON-RPC over stdio, ADR 0062), `CODEX_HOME` inside the Attempt's folder so the user's ~/.codex
 * is never read. The session's wrapper feeds its stdin: `codexSessionStart` (the thread, whose id usine chose, then
 * the task as its first turn), then each operator message as one more `turn/start`, until the daemon sees the thread
 * idle and closes stdin; Codex then exits.
 */
export const CodexHarness: Harness = {
  name: "codex",
  invocation: (input) => {
    const provider = input.modelProvider
    const model = provider === undefined ? input.model : provider.model
    const home = join(input.attemptDir, "codex-home")
    const threadId = codexThreadId(input.attemptDir)
    return {
      argv: [...cliArgv(input.command, "codex"), "app-server"],
      env: {
        CODEX_HOME: home,
        ...(provider?.apiKey === undefined ? {} : { [MODEL_PROVIDER_KEY_VARIABLE]: provider.apiKey })
      },
      stdin: codexSessionStart({ threadId, seedPath: join(home, CODEX_SEED_ROLLOUT), workdir: input.workdir, model, prompt: input.prompt }),
      // Codex refuses a CODEX_HOME that does not exist; writing its config creates the folder.
      files: {
        "codex-home/config.toml": configToml(provider),
        [`codex-home/${CODEX_SEED_ROLLOUT}`]: codexSeedRollout(threadId, input.workdir)
      }
    }
  },
  parser: () => codexAppServerParser(),
  exitFailure: processExitFailure,
  isStallLine: (line) => {
    if (!line.includes("Reconnecting") && !line.includes("willRetry")) return false
    const parsed = jsonLine(line, 0)
    if (parsed._tag !== "Event") return false
    const e = parsed.event
    if (e["method"] === "error") return obj(e["params"])["willRetry"] === true || RECONNECTING.test(str(obj(obj(e["params"])["error"])["message"]) ?? "")
    return e.type === "error" && RECONNECTING.test(str(e["message"]) ?? "")
  },
  channel: codexChannel,
  interrupt: codexInterrupt
}

/**
 * Codex's `config.toml` for one Attempt. With a model provider, it declares it (Responses API, the key read from
 * `MODEL_PROVIDER_KEY_VARIABLE`, so the key is not in the file) and selects it. JSON string escapes are valid TOML.
 */
const configToml = (provider: ModelProvider | undefined): string => {
  const header = "# Written by usine for one Attempt; the user's ~/.codex is not read.\n"
  if (provider === undefined) return header
  const key = provider.apiKey === undefined ? "" : `env_key = ${JSON.stringify(MODEL_PROVIDER_KEY_VARIABLE)}\n`
  return (
    `${header}model_provider = "usine"\n\n[model_providers.usine]\nname = "usine"\n` +
    `base_url = ${JSON.stringify(provider.baseUrl)}\nwire_api = "responses"\n${key}`
  )
}
