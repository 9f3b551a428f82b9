import { type ConfigIssue, formatPath, issueAt } from "./ConfigIssue"
import { matchRepository } from "./matchRepository"
import { entries, field, isMap, items, type Raw, text } from "./RawConfig"

const list = (names: ReadonlyArray<string>) =>
  names.length === 0 ? "none are declared" : `declared: ${names.map((n) => `\`${n}\``).join(", ")}`

/** Rules where a value must name something declared elsewhere in the file, or be unique. */
export const checkReferences = (raw: Raw): ReadonlyArray<ConfigIssue> => {
  const issues: Array<ConfigIssue> = []
  const agents = entries(field(raw, "agents")).map(([name]) => name)
  // A section of the wrong shape is the schema's to report; references into it cannot be judged.
  const agentsKnown = field(raw, "agents") === undefined || isMap(field(raw, "agents"))
  const rawWorkers = field(raw, "workers")
  // Without a `workers` key the daemon has one local Worker that runs every Agent.
  const workers = rawWorkers === undefined ? [["local", {}] as const] : entries(rawWorkers)
  const workersKnown = rawWorkers === undefined || isMap(rawWorkers)
  const canRun = (worker: Raw, agent: string) => {
    const allowed = field(worker, "agents")
    return allowed === undefined || items(allowed).includes(agent)
  }
  const repositories = items(field(raw, "repositories")).flatMap((r) => (typeof r === "string" ? [r] : []))
  const labels = items(field(raw, "labels")).flatMap((label) => text(field(label, "name")) ?? [])

  for (const [name, worker] of workers) {
    items(field(worker, "agents")).forEach((agent, index) => {
      if (agentsKnown && typeof agent === "string" && !agents.includes(agent)) {
        issues.push(issueAt(["workers", name, "agents", index], `unknown agent \`${agent}\`; ${list(agents)}`))
      }
    })
  }

  items(field(raw, "loops")).forEach((loop, index) => {
    const agent = text(field(loop, "agent"))
    const judge = text(field(loop, "judge"))
    if (agentsKnown && judge !== undefined && !agents.includes(judge)) {
      issues.push(issueAt(["loops", index, "judge"], `unknown agent \`${judge}\`; ${list(agents)}`))
    }
    const loopWorkers = field(loop, "workers")
    if (agentsKnown && agent !== undefined && !agents.includes(agent)) {
      issues.push(issueAt(["loops", index, "agent"], `unknown agent \`${agent}\`; ${list(agents)}`))
    } else if (
      workersKnown &&
      agent !== undefined &&
      loopWorkers === undefined &&
      !workers.some(([, w]) => canRun(w, agent))
    ) {
      issues.push(issueAt(["loops", index, "agent"], `no Worker can run agent \`${agent}\``))
    }
    items(loopWorkers).forEach((worker, position) => {
      if (typeof worker !== "string" || !workersKnown) return
      const declared = workers.find(([name]) => name === worker)
      const path = ["loops", index, "workers", position]
      if (declared === undefined) {
        issues.push(issueAt(path, `unknown worker \`${worker}\`; ${list(workers.map(([name]) => name))}`))
      } else if (agent !== undefined && agents.includes(agent) && !canRun(declared[1], agent)) {
        issues.push(issueAt(path, `worker \`${worker}\` does not run agent \`${agent}\` (see its \`agents\`)`))
      }
    })
    items(field(loop, "repositories")).forEach((pattern, position) => {
      if (
        typeof pattern === "string" &&
        Array.isArray(field(raw, "repositories")) &&
        !repositories.some((repository) => matchRepository(pattern, repository))
      ) {
        issues.push(
          issueAt(["loops", index, "repositories", position], `\`${pattern}\` selects none of the declared repositories`)
        )
      }
    })
  })

  items(field(field(raw, "board"), "columns")).forEach((column, index) => {
    const label = text(field(column, "label"))
    const labelsKnown = field(raw, "labels") === undefined || Array.isArray(field(raw, "labels"))
    if (label !== undefined && labelsKnown && !labels.includes(label)) {
      issues.push(issueAt(["board", "columns", index, "label"], `label \`${label}\` is not declared under \`labels\``))
    }
  })

  issues.push(
    ...duplicates(items(field(raw, "loops")), ["loops"], "name", "Loop name"),
    ...duplicates(items(field(raw, "labels")), ["labels"], "name", "label"),
    ...duplicates(items(field(field(raw, "board"), "columns")), ["board", "columns"], "name", "column name"),
    ...duplicates(items(field(raw, "repositories")), ["repositories"], undefined, "repository")
  )
  return issues
}

/** Every later entry whose key repeats an earlier one's (case-insensitive). */
const duplicates = (
  values: ReadonlyArray<Raw>,
  path: ReadonlyArray<string>,
  key: string | undefined,
  what: string
): ReadonlyArray<ConfigIssue> => {
  const seen = new Map<string, number>()
  const issues: Array<ConfigIssue> = []
  values.forEach((value, index) => {
    const name = text(key === undefined ? value : field(value, key))
    if (name === undefined) return
    const first = seen.get(name.toLowerCase())
    const at = key === undefined ? [...path, index] : [...path, index, key]
    if (first === undefined) seen.set(name.toLowerCase(), index)
    else issues.push(issueAt(at, `duplicate ${what} \`${name}\` (also ${formatPath([...path, first])})`))
  })
  return issues
}
