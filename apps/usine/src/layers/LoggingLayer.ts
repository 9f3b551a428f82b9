import { join } from "node:path"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { RotatingLogFile } from "../daemon/RotatingLogFile"
import { jsonLine, logFields, logfmtLine } from "../daemon/formatLogLine"

interface LoggingOptions {
  /** JSON lines instead of logfmt, on stdout and in the file. */
  readonly json: boolean
  /** Every line on stdout, or only warnings and errors (the demo keeps its terminal for its own messages). */
  readonly stdout: "all" | "warnings"
  /** The folder of the rotating file (`usine.log`, then `.1` to `.3`). */
  readonly folder: string
  /** Every line passes through it before it is written anywhere. */
  readonly redact: (line: string) => string
}

/** The log file rotates at this size. */
const LOG_FILE_BYTES = 10 * 1024 * 1024
/** Rotated files kept beside the current one. */
const LOG_FILES_KEPT = 3

/**
 * The daemon's logger: each line redacted, then written to stdout and to a rotating file under the ledger's folder.
 * A failing file never stops the daemon: the trouble is told once on stderr and the line still reaches stdout.
 */
export const LoggingLayer = (options: LoggingOptions): Layer.Layer<never> => {
  const file = new RotatingLogFile({
    file: join(options.folder, "usine.log"),
    maxBytes: LOG_FILE_BYTES,
    keep: LOG_FILES_KEPT,
    onTrouble: (message) => process.stderr.write(`usine: ${message}\n`)
  })
  const render = options.json ? jsonLine : logfmtLine
  const logger = Logger.make<unknown, void>((record) => {
    const line = options.redact(render(logFields(record)))
    if (options.stdout === "all" || LogLevel.greaterThanEqual(record.logLevel, LogLevel.Warning)) {
      process.stdout.write(`${line}\n`)
    }
    file.write(line)
  })
  // A closed stdout (a pipe whose reader left) reports an error event; unheard, it would end the process.
  const ignoreStdoutErrors = Layer.scopedDiscard(
    Effect.acquireRelease(
      Effect.sync(() => {
        const ignore = () => {}
        process.stdout.on("error", ignore)
        return ignore
      }),
      (ignore) => Effect.sync(() => process.stdout.off("error", ignore))
    )
  )
  // runMain swaps the default logger for the pretty one; neither may print beside this one.
  return Layer.mergeAll(
    ignoreStdoutErrors,
    Logger.remove(Logger.prettyLoggerDefault),
    Logger.replace(Logger.defaultLogger, logger),
    Logger.minimumLogLevel(LogLevel.Info)
  )
}
