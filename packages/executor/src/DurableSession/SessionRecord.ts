import { Schema } from "effect"

/**
 * What the daemon keeps of a started session: written to `<attemptDir>/session.json` and handed to the
 * engine as the Attempt's session handle, so a later process can find, follow and stop it.
 */
export class SessionRecord extends Schema.Class<SessionRecord>("SessionRecord")({
  /** The Worker host the process runs on. */
  host: Schema.String,
  pid: Schema.Number,
  /** Equal to `pid`: the wrapper leads its own session and process group. */
  pgid: Schema.Number,
  /** Field 22 of `/proc/<pid>/stat` at start: a reused pid has another start time. */
  startTime: Schema.String,
  attemptDir: Schema.String,
  /**
   * `feed`: the wrapper feeds stdin from `stdin` then the inbox (ADR 0062); `fifo`: stdin stays open and the daemon
   * writes to it (older sessions); `file`: stdin is a file read to its end; `none`: /dev/null.
   */
  stdin: Schema.Literal("feed", "fifo", "file", "none"),
  /** Clock milliseconds at start, for `max_attempt_minutes`. */
  startedAt: Schema.Number
}) {}

const Json = Schema.parseJson(SessionRecord)

/** The handle string the engine stores (`onSession`) and gives back on reattach. */
export const encodeHandle = Schema.encodeSync(Json)
export const decodeHandle = Schema.decodeUnknown(Json)
