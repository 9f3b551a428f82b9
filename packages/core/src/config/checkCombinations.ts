import { type ConfigIssue, issueAt } from "./ConfigIssue"
import { entries, field, has, items, type Raw, text } from "./RawConfig"

/** Rules where one key decides whether another is required or allowed. */
export const checkCombinations = (raw: Raw): ReadonlyArray<ConfigIssue> => {
  const issues: Array<ConfigIssue> = []
  items(field(raw, "loops")).forEach((loop, index) => {
    const at = (key: string) => ["loops", index, key]
    const on = text(field(loop, "on"))
    if (on === "schedule") {
      if (!has(loop, "cron")) issues.push(issueAt(at("cron"), "a schedule Loop needs `cron`"))
      if (has(loop, "max_cycles")) {
        issues.push(issueAt(at("max_cycles"), "schedule Loops have no cycle budget; remove `max_cycles`"))
      }
      for (const key of ["trust", "trusted_authors"]) {
        if (has(loop, key)) issues.push(issueAt(at(key), `a schedule Loop has no author to trust; remove \`${key}\``))
      }
      if (has(loop, "max_no_progress")) {
        issues.push(issueAt(at("max_no_progress"), "schedule Loops have no no-progress brake; remove `max_no_progress`"))
      }
      for (const key of ["status_labels", "comment"]) {
        if (has(loop, key)) issues.push(issueAt(at(key), `a schedule Loop has no Item to write \`${key}\` to; remove it`))
      }
    } else if (on !== undefined) {
      for (const key of ["cron", "tz"]) {
        if (has(loop, key)) issues.push(issueAt(at(key), `\`${key}\` applies only to \`on: schedule\` Loops, not \`on: ${on}\``))
      }
    }
    const approval = field(loop, "approval")
    if (field(approval, "by") === "other_than_labeller" && field(approval, "start") === "none") {
      issues.push(issueAt([...at("approval"), "by"], "`by` names who may approve the start, which `start: none` never asks"))
    }
    if (on === "schedule" && field(approval, "by") === "other_than_labeller") {
      issues.push(issueAt([...at("approval"), "by"], "a schedule Loop's Tick has no labeller to exclude"))
    }
    if (on !== undefined && on !== "issues" && field(field(loop, "pull_request"), "closes") === true) {
      issues.push(issueAt([...at("pull_request"), "closes"], "only an issue Loop's pull request closes an issue"))
    }
  })
  for (const [name, worker] of entries(field(raw, "workers"))) {
    const type = field(worker, "type") ?? "local"
    if (type === "ssh" && !has(worker, "host")) {
      issues.push(issueAt(["workers", name, "host"], "an ssh Worker needs `host`"))
    }
    if (type === "local" && has(worker, "host")) {
      issues.push(issueAt(["workers", name, "host"], "`host` applies only to `type: ssh` Workers"))
    }
  }
  for (const [name, agent] of entries(field(raw, "agents"))) {
    if (field(agent, "harness") === "command" && !has(agent, "command")) {
      issues.push(issueAt(["agents", name, "command"], "the `command` harness needs `command`"))
    }
  }
  return issues
}
