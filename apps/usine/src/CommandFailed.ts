import * as Data from "effect/Data"

/** A command failed and has already told the user why; the process exits with status 1 and prints nothing more. */
export class CommandFailed extends Data.TaggedError("CommandFailed")<{ readonly command: string }> {}
