import * as path from "node:path/posix"

/** The files of one Attempt's folder that the session wrapper and the daemon share. */
export const sessionFiles = (attemptDir: string) => ({
  stream: path.join(attemptDir, "stream.jsonl"),
  stderr: path.join(attemptDir, "stderr.log"),
  exit: path.join(attemptDir, "exit"),
  stdin: path.join(attemptDir, "stdin"),
  fifo: path.join(attemptDir, "stdin.fifo"),
  /** The CLI's stdin when the wrapper feeds it (ADR 0062): `stdin`, then the inbox's messages. */
  feed: path.join(attemptDir, "stdin.feed"),
  env: path.join(attemptDir, "env.sh"),
  session: path.join(attemptDir, "session.json"),
  /** Written before the spawn: which claim file the wrapper takes, so an unrecorded start can be found. */
  starting: path.join(attemptDir, "session.starting.json"),
  inbox: path.join(attemptDir, "inbox"),
  /** Where the feeder moves each inbox message once written to the CLI's stdin. */
  fed: path.join(attemptDir, "inbox", "fed"),
  /** Dropped by the daemon when the CLI is idle: the feeder closes the CLI's stdin unless a message came with it. */
  close: path.join(attemptDir, "inbox", "close")
})

/** The file a wrapper of start `generation` creates (exclusively) before anything else, holding its `/proc` stat. */
export const claimName = (generation: number): string => `session.claim-${generation}`
