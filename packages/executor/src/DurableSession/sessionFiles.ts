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
  inbox: path.join(attemptDir, "inbox")
})
