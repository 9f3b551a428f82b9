import * as path from "node:path/posix"

/** The files of one Attempt's folder that the session wrapper and the daemon share. */
export const sessionFiles = (attemptDir: string) => ({
  stream: path.join(attemptDir, "stream.jsonl"),
  stderr: path.join(attemptDir, "stderr.log"),
  exit: path.join(attemptDir, "exit"),
  stdin: path.join(attemptDir, "stdin"),
  fifo: path.join(attemptDir, "stdin.fifo"),
  env: path.join(attemptDir, "env.sh"),
  session: path.join(attemptDir, "session.json"),
  /** Written before the spawn: which claim file the wrapper takes, so an unrecorded start can be found. */
  starting: path.join(attemptDir, "session.starting.json"),
  inbox: path.join(attemptDir, "inbox")
})

/** The file a wrapper of start `generation` creates (exclusively) before anything else, holding its `/proc` stat. */
export const claimName = (generation: number): string => `session.claim-${generation}`
