import { Brand } from "effect"
import type { RunId } from "./RunId"

/** `<runId>/<step>/<number>`; numbers start at 1 and never repeat within a Run's Step. */
export type AttemptId = string & Brand.Brand<"AttemptId">
export const AttemptId = Brand.nominal<AttemptId>()

/** A Run has one Step today; the id keeps room for more. */
export const DEFAULT_STEP = "main"

export const attemptIdOf = (runId: RunId, number: number, step: string = DEFAULT_STEP): AttemptId =>
  AttemptId(`${runId}/${step}/${number}`)

export const parseAttemptId = (
  id: AttemptId
): { readonly runId: RunId; readonly step: string; readonly number: number } => {
  const [runId, step, number] = id.split("/")
  return { runId: runId as RunId, step: step ?? DEFAULT_STEP, number: Number(number) }
}
