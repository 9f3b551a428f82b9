import { type Document, isMap, isScalar, isSeq, type Node } from "yaml"
import { type ConfigIssue, issueAt } from "./ConfigIssue"

/** The environment `${NAME}` references read from; passed in so that parsing stays pure. */
export type ConfigEnv = Readonly<Record<string, string | undefined>>

const reference = /\$\$\{|\$\{([^}]*)\}/g
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string value of the document (keys are left alone);
 * `$${` stands for a literal `${`. The default applies when the variable is unset or empty.
 * Mutates the document's scalars and returns one issue per reference it could not resolve.
 */
export const interpolateEnv = (document: Document, env: ConfigEnv): ReadonlyArray<ConfigIssue> => {
  const issues: Array<ConfigIssue> = []
  const visit = (node: unknown, path: ReadonlyArray<string | number>): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key
        visit(pair.value, [...path, String(key)])
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => visit(item, [...path, index]))
    } else if (isScalar(node) && typeof node.value === "string" && node.value.includes("${")) {
      node.value = interpolate(node.value, env, (message) => issues.push(issueAt(path, message)))
    }
  }
  visit(document.contents as Node | null, [])
  return issues
}

const interpolate = (text: string, env: ConfigEnv, report: (message: string) => void): string =>
  text.replace(reference, (match, body: string | undefined) => {
    if (body === undefined) return "${"
    const separator = body.indexOf(":-")
    const name = separator === -1 ? body : body.slice(0, separator)
    if (!variableName.test(name)) {
      report(`\`${match}\` is not a variable reference; write \${NAME} or \${NAME:-default}, or $\${ for a literal \${`)
      return match
    }
    const value = env[name]
    if (value !== undefined && value !== "") return value
    if (separator !== -1) return body.slice(separator + 2)
    if (value === "") return value
    report(`environment variable ${name} is not set; write \${${name}:-default} to allow that`)
    return match
  })
