import type { LedgerSnapshot } from "./LedgerSnapshot"

/** A pull request as the emulator holds it. */
export interface EmulatedPull {
  readonly number: number
  readonly head: string
  readonly state: string
}

/** One invariant evaluated once: how many things it looked at, and what broke it. */
export interface Check {
  readonly invariant: string
  readonly checked: number
  readonly violations: ReadonlyArray<string>
}

const check = (invariant: string, checked: number, violations: ReadonlyArray<string>): Check => ({ invariant, checked, violations })

const groupBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string): Map<string, Array<A>> => {
  const groups = new Map<string, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const group = groups.get(k)
    if (group === undefined) groups.set(k, [item])
    else group.push(item)
  }
  return groups
}

const OPEN = new Set(["Pending", "Waiting", "Queued", "Running"])

/** `usine/<loop>/<number>-<first 8 of the Run id>`: the Run a pull request's head branch belongs to. */
const runPrefixOfBranch = (head: string): string | undefined => /^usine\/[^/]+\/(?:\d+|tick)-([0-9a-f]{8})$/.exec(head)?.[1]

/**
 * The invariants that hold at every instant, whatever was killed when: the ledger file is sound, one Run per dedup
 * key and per content, one open Run per Loop and Item, a transition row for every state change, at most one open
 * Attempt per Run and only on a Running Run, one pull request per Run and none without a Run, and every Attempt that
 * says it opened a pull request names one that exists on its branch.
 */
export const checkLedger = (ledger: LedgerSnapshot, pulls: ReadonlyArray<EmulatedPull>): ReadonlyArray<Check> => {
  const events = new Map(ledger.events.map((e) => [e.id, e]))
  const runs = new Map(ledger.runs.map((r) => [r.id, r]))

  const dedup = [...groupBy(ledger.runs, (r) => r.eventId)].filter(([, rs]) => rs.length > 1)
  const perContent = [
    ...groupBy(ledger.runs, (r) => {
      const event = events.get(r.eventId)
      return JSON.stringify([r.loop, r.itemKey, event?.contentHash ?? r.eventId, event?.generation ?? 0])
    })
  ].filter(([, rs]) => rs.length > 1)
  const openPairs = [...groupBy(ledger.runs.filter((r) => OPEN.has(r.state)), (r) => `${r.loop} ${r.itemKey}`)].filter(
    ([, rs]) => rs.length > 1
  )

  const transitionsOf = groupBy(ledger.transitions, (t) => t.runId)
  const chainBreaks = ledger.runs.flatMap((run) => {
    const chain = transitionsOf.get(run.id) ?? []
    if (chain.length === 0) return [`Run ${run.id} has no transition row`]
    if (chain[0]?.from !== null || chain[0]?.to !== "Pending") return [`Run ${run.id} opens with ${chain[0]?.from} → ${chain[0]?.to}`]
    for (let i = 1; i < chain.length; i++) {
      if (chain[i]?.from !== chain[i - 1]?.to) return [`Run ${run.id}: ${chain[i - 1]?.to} is followed by a row from ${chain[i]?.from}`]
      if (chain[i]?.from === chain[i]?.to) return [`Run ${run.id}: a row from ${chain[i]?.from} to itself`]
    }
    const last = chain[chain.length - 1]?.to
    return last === run.state ? [] : [`Run ${run.id} is ${run.state} but its last transition row says ${last}`]
  })
  const orphanTransitions = ledger.transitions.filter((t) => !runs.has(t.runId)).map((t) => `transition of unknown Run ${t.runId}`)

  const openAttempts = ledger.attempts.filter((a) => a.outcome === undefined)
  const attemptViolations = [
    ...[...groupBy(openAttempts, (a) => a.runId)].filter(([, as]) => as.length > 1).map(([runId]) => `Run ${runId} has several open Attempts`),
    ...openAttempts
      .filter((a) => runs.get(a.runId)?.state !== "Running")
      .map((a) => `Attempt ${a.id} is open on a ${runs.get(a.runId)?.state ?? "missing"} Run`),
    ...ledger.attempts
      .filter((a) => a.outcome?._tag === "Failed" && a.outcome.failure?._tag === "DefectFailure")
      .map((a) => `Attempt ${a.id} ended in a defect: ${a.outcome?.failure?.reason}`)
  ]

  const byRunPrefix = groupBy(
    pulls.filter((p) => p.head.startsWith("usine/") && !p.head.startsWith("usine/salvage/")),
    (p) => runPrefixOfBranch(p.head) ?? p.head
  )
  const runPrefixes = new Set(ledger.runs.map((r) => r.id.slice(0, 8)))
  const pullViolations = [
    ...[...byRunPrefix].filter(([, ps]) => ps.length > 1).map(([prefix, ps]) => `Run ${prefix}… has ${ps.length} pull requests: #${ps.map((p) => p.number).join(", #")}`),
    ...[...byRunPrefix.keys()].filter((prefix) => !runPrefixes.has(prefix)).map((prefix) => `a pull request on a branch of no Run: ${prefix}`)
  ]
  const pullsByNumber = new Map(pulls.map((p) => [p.number, p]))
  const succeededWithPull = ledger.attempts.filter((a) => a.outcome?._tag === "Succeeded" && a.outcome.result?.pullRequestNumber !== undefined)
  const namedPullViolations = succeededWithPull.flatMap((a) => {
    const pull = pullsByNumber.get(a.outcome?.result?.pullRequestNumber ?? -1)
    if (pull === undefined) return [`Attempt ${a.id} names pull request #${a.outcome?.result?.pullRequestNumber}, which does not exist`]
    return pull.head === a.outcome?.result?.branch ? [] : [`Attempt ${a.id} names #${pull.number} on ${pull.head}, not ${a.outcome?.result?.branch}`]
  })

  return [
    check("PRAGMA quick_check = ok", 1, ledger.quickCheck === "ok" ? [] : [ledger.quickCheck]),
    check("one Run per dedup key", ledger.runs.length, dedup.map(([eventId, rs]) => `${rs.length} Runs for Event ${eventId}`)),
    check("content acted on at most once", ledger.runs.length, perContent.map(([key, rs]) => `${rs.length} Runs for ${key}`)),
    check("one open Run per Loop and Item", ledger.runs.length, openPairs.map(([pair, rs]) => `${rs.length} open Runs for ${pair}`)),
    check("a transition row per state change", ledger.runs.length + ledger.transitions.length, [...chainBreaks, ...orphanTransitions]),
    check("Attempts open only on Running Runs, no defects", ledger.attempts.length, attemptViolations),
    check("at most one pull request per Run", pulls.length, pullViolations),
    check("a succeeded Attempt's pull request exists", succeededWithPull.length, namedPullViolations)
  ]
}

/**
 * No lost Event: every Item whose current content matches a Loop has an Event of that Loop for exactly that content
 * (the projection holds the content hash usine last observed). `expected` maps an issue number to the Loops its
 * labels match now; call it once the daemon has had time to poll.
 */
export const checkNoLostEvent = (
  ledger: LedgerSnapshot,
  repository: string,
  expected: ReadonlyMap<number, ReadonlyArray<string>>
): Check => {
  const projections = new Map(ledger.projections.map((p) => [p.itemKey, p]))
  const recorded = new Set(ledger.events.map((e) => JSON.stringify([e.loop, e.itemKey, e.contentHash])))
  let checked = 0
  const violations: Array<string> = []
  for (const [number, loops] of expected) {
    const itemKey = JSON.stringify(["github", repository.toLowerCase(), number])
    const projection = projections.get(itemKey)
    for (const loop of loops) {
      checked++
      if (projection === undefined) violations.push(`#${number} was never observed`)
      else if (!recorded.has(JSON.stringify([loop, itemKey, projection.viewHash]))) {
        violations.push(`no ${loop} Event for #${number} at content ${projection.viewHash.slice(0, 12)}`)
      }
    }
  }
  return check("no lost Event", checked, violations)
}

/**
 * Attempts that were open when the daemon was killed: once the next daemon settled, each one closed as it would
 * have without the kill (reattached to its outcome), or as an InfraFailure (gone, retried), or was canceled.
 */
export const checkAfterRestart = (ledger: LedgerSnapshot, openAtKill: ReadonlyArray<string>): Check => {
  const attempts = new Map(ledger.attempts.map((a) => [a.id, a]))
  const violations = openAtKill.flatMap((id) => {
    const outcome = attempts.get(id)?.outcome
    if (outcome === undefined) return [`Attempt ${id} is still open after the restart settled`]
    if (outcome._tag === "Succeeded" || outcome._tag === "Canceled") return []
    if (outcome.failure?._tag === "InfraFailure") return []
    return [`Attempt ${id} open at the kill ended ${outcome.failure?._tag}: ${outcome.failure?.reason}`]
  })
  return check("every Attempt reattached, or InfraFailure", openAtKill.length, violations)
}
