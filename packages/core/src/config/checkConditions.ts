import { Either } from "effect"
import { compileCel } from "./CelExpression"
import { conditionProblems } from "./conditionProblems"
import { type ConfigIssue, issueAt } from "./ConfigIssue"
import { loopContextType } from "./LoopContextType"
import { field, items, type Raw, text } from "./RawConfig"

const triggers = new Set(["issues", "pull_requests", "schedule"] as const)
const isTrigger = (on: string | undefined): on is "issues" | "pull_requests" | "schedule" =>
  on !== undefined && triggers.has(on as "issues")

/**
 * Each Loop's `if:` against the declared context of its trigger (`loopContextType`): a field it lacks, an operand
 * of the wrong type, a literal the field never holds. An expression that does not parse is the schema's to report.
 */
export const checkConditions = (raw: Raw): ReadonlyArray<ConfigIssue> =>
  items(field(raw, "loops")).flatMap((loop, index) => {
    const source = text(field(loop, "if"))
    const on = text(field(loop, "on"))
    if (source === undefined || !isTrigger(on) || Either.isLeft(compileCel(source))) return []
    return conditionProblems(source, loopContextType(on)).map((message) => issueAt(["loops", index, "if"], message))
  })
