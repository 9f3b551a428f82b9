import { Console, Effect } from "effect"
import { makeRedactor } from "@usine/core/text/Redactor"
import { credentialOf, resolveCredential } from "@usine/github/resolveCredential"
import { CommandFailed } from "../../CommandFailed"
import { daemonEnvironment } from "../../daemon/DaemonEnvironment"
import { daemonSecrets } from "../../daemon/daemonSecrets"
import { credentialSources, pathFrom } from "../../daemon/StartupPlan"
import { checkAgentKey } from "../../doctor/checkAgentClis"
import { checkBoardPort } from "../../doctor/checkBoardPort"
import { checkGitHubAccess } from "../../doctor/checkGitHubAccess"
import { checkLedgerMigrations } from "../../doctor/checkLedgerMigrations"
import { checkWorker } from "../../doctor/checkWorker"
import { fail, formatLine, pass, type DoctorLine } from "../../doctor/DoctorLine"
import { loadConfig } from "../../loadConfig"
import { shownLedger } from "@usine/core/config/LedgerConfig"
import { version } from "../../../package.json"

/** What `usine doctor` does once its options are parsed; loaded by the command only when it runs (ADR 0095). */
export const runDoctor = ({ config: configFile }: { readonly config: string }) =>
  Effect.gen(function* () {
    let failed = false
    let redactor = makeRedactor()
    const print = (lines: ReadonlyArray<DoctorLine>) =>
      Effect.forEach(lines, (line) => {
        failed ||= line.status === "fail"
        return Console.log(redactor.redact(formatLine(line)))
      })
    yield* print([pass(`usine ${version} on Node ${process.versions.node}`)])
    const loaded = yield* Effect.either(loadConfig(configFile))
    if (loaded._tag === "Left") {
      const first = loaded.left._tag === "ConfigInvalid" ? loaded.left.message.split("\n")[0] ?? "" : loaded.left.message
      yield* print([fail(`config: ${first} (run \`usine check ${configFile}\` for every problem)`)])
      return yield* new CommandFailed({ command: "doctor" })
    }
    const config = loaded.right
    const env = daemonEnvironment()
    yield* print([pass(`config: ${configFile} loads`)])
    yield* print([
      config.ledger._tag === "sqlite"
        ? yield* checkLedgerMigrations(pathFrom(configFile, config.ledger.file))
        : pass(`ledger: PostgreSQL at ${shownLedger(config.ledger)} (its migrations run when \`usine up\` connects)`)
    ])
    const credential = yield* Effect.either(resolveCredential(credentialSources(configFile, config, env)))
    if (credential._tag === "Left") yield* print([fail(`token: ${credential.left.message}`)])
    else {
      const found = credential.right
      redactor = makeRedactor(daemonSecrets({ config, token: credentialOf(found), privateKey: found._tag === "App" ? found.app.privateKey : undefined, env }))
      yield* print([pass(found._tag === "App" ? `token: GitHub App ${found.app.appId}, its private key readable by its owner only` : "token: found")])
      yield* print(yield* checkGitHubAccess(config, found))
    }
    for (const [name, worker] of Object.entries(config.workers)) yield* print(yield* checkWorker({ configFile, config, name, worker, env }))
    yield* print(Object.entries(config.agents).flatMap(([name, agent]) => checkAgentKey(name, agent, env)))
    yield* print([yield* checkBoardPort(config)])
    if (failed) return yield* new CommandFailed({ command: "doctor" })
  })
