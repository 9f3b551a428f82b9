import { Data } from "effect"

/** One problem in a usine.yaml, placed in the file. */
export interface ConfigProblem {
  /** Where in the document: `loops[2].if`; empty for the file as a whole (a YAML syntax error). */
  readonly path: string
  /** 1-based. */
  readonly line: number
  /** 1-based. */
  readonly column: number
  readonly message: string
}

/** The configuration file is not valid; every problem found is listed, in file order. */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{
  readonly file: string
  readonly problems: ReadonlyArray<ConfigProblem>
}> {
  override get message() {
    return this.problems.map((problem) => formatProblem(this.file, problem)).join("\n")
  }
}

/** `usine.yaml:12:5 loops[2].if: <message>` */
const formatProblem = (file: string, problem: ConfigProblem): string =>
  `${file}:${problem.line}:${problem.column} ${problem.path === "" ? "" : `${problem.path}: `}${problem.message}`
