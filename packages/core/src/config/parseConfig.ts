import { Array as Arr, Effect, Either, Order, Schema } from "effect"
import { type Document, LineCounter, parseDocument } from "yaml"
import { checkBoard } from "./checkBoard"
import { checkCombinations } from "./checkCombinations"
import { checkConditions } from "./checkConditions"
import { checkReferences } from "./checkReferences"
import { compileLoop } from "./CompiledLoop"
import { type ConfigIssue, formatPath } from "./ConfigIssue"
import { ConfigInvalid, type ConfigProblem } from "./ConfigInvalid"
import { type ConfigEnv, interpolateEnv } from "./interpolateEnv"
import { issuesOfParseIssue } from "./issuesOfParseIssue"
import { locateIssue } from "./locateIssue"
import { type UsineConfig, UsineConfigFile } from "./UsineConfig"

interface ParseConfigOptions {
  /** The environment `${NAME}` reads. */
  readonly env: ConfigEnv
  /** The file's name, used in problem messages. */
  readonly file?: string
}

const decodeFile = Schema.decodeUnknownEither(UsineConfigFile, { errors: "all", onExcessProperty: "error" })

const byPosition = Order.combine(
  Order.mapInput(Order.number, (problem: ConfigProblem) => problem.line),
  Order.mapInput(Order.number, (problem: ConfigProblem) => problem.column)
)

/**
 * Parses the text of a usine.yaml: YAML, `${ENV}` interpolation, the schema, the rules that tie keys together,
 * compilation of every `if:`, `prompt:` and `cron`, and each `if:` checked against its Loop's declared context.
 * Fails with every problem found, each placed on its line and column. Pure: the caller reads the file and
 * supplies the environment.
 */
export const parseConfig = (text: string, options: ParseConfigOptions): Effect.Effect<UsineConfig, ConfigInvalid> =>
  Effect.suspend(() => {
    const file = options.file ?? "usine.yaml"
    const lineCounter = new LineCounter()
    const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
    const syntax = [...document.errors, ...document.warnings]
    if (syntax.length > 0) {
      const problems = syntax.map((error): ConfigProblem => {
        const { line, col } = lineCounter.linePos(error.pos[0])
        return { path: "", line, column: col, message: error.message }
      })
      return Effect.fail(new ConfigInvalid({ file, problems: Arr.sort(problems, byPosition) }))
    }
    const issues: Array<ConfigIssue> = [...interpolateEnv(document, options.env)]
    const raw: unknown = document.toJS({ maxAliasCount: 100 })
    const decoded = decodeFile(raw)
    if (Either.isLeft(decoded)) issues.push(...issuesOfParseIssue(decoded.left.issue))
    issues.push(...checkCombinations(raw), ...checkBoard(raw), ...checkReferences(raw), ...checkConditions(raw))
    if (issues.length > 0) return Effect.fail(new ConfigInvalid({ file, problems: place(document, lineCounter, issues) }))
    if (Either.isLeft(decoded)) return Effect.die(decoded.left)
    const config = decoded.right
    return Effect.succeed({ ...config, loops: config.loops.map((loop) => compileLoop(loop, config)) })
  })

const place = (document: Document, lineCounter: LineCounter, issues: ReadonlyArray<ConfigIssue>) => {
  const seen = new Set<string>()
  const problems: Array<ConfigProblem> = []
  for (const issue of issues) {
    const { line, column } = locateIssue(document, lineCounter, issue)
    const problem = { path: formatPath(issue.path), line, column, message: issue.message }
    const key = `${problem.path}\n${problem.message}`
    if (!seen.has(key)) problems.push(problem)
    seen.add(key)
  }
  return Arr.sort(problems, byPosition)
}


