import { Option, type ParseResult, SchemaAST as AST } from "effect"
import { type ConfigIssue, issueAt } from "./ConfigIssue"

type Path = ReadonlyArray<string | number>

/** The keys a map may hold: its fixed names, or for a record, the schema of its keys. */
interface Keys {
  readonly names: ReadonlyArray<string>
  readonly index: AST.AST | undefined
}

const noKeys: Keys = { names: [], index: undefined }

/**
 * Flattens a Schema decoding failure into one readable issue per problem. Optional keys' `undefined`
 * alternatives are dropped, and a union whose members all fail at the top is reported once, as
 * "expected A or B", instead of once per member.
 */
export const issuesOfParseIssue = (issue: ParseResult.ParseIssue): ReadonlyArray<ConfigIssue> => {
  const issues: Array<ConfigIssue> = []
  walk(issue, [], noKeys, issues)
  return issues
}

const walk = (
  issue: ParseResult.ParseIssue,
  path: Path,
  keys: Keys,
  out: Array<ConfigIssue>
): void => {
  switch (issue._tag) {
    case "Pointer": {
      const segments = (Array.isArray(issue.path) ? issue.path : [issue.path]) as ReadonlyArray<PropertyKey>
      const next = [...path, ...segments.map((s) => (typeof s === "number" ? s : String(s)))]
      const key = String(next[next.length - 1])
      if (issue.issue._tag === "Unexpected") out.push({ path: next, at: "key", message: unknownKey(key, keys) })
      else if (issue.issue._tag === "Missing") out.push(issueAt(next, `required key \`${key}\` is missing`))
      else walk(issue.issue, next, noKeys, out)
      return
    }
    case "Composite": {
      if (AST.isUnion(issue.ast)) return walkUnion(issue, path, out)
      const inner = Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      const keys: Keys = AST.isTypeLiteral(issue.ast)
        ? { names: issue.ast.propertySignatures.map((p) => String(p.name)), index: issue.ast.indexSignatures[0]?.parameter }
        : noKeys
      for (const each of inner as ReadonlyArray<ParseResult.ParseIssue>) walk(each, path, keys, out)
      return
    }
    case "Refinement":
      if (issue.kind === "From" && isLeaf(issue.issue)) out.push(issueAt(path, expected(issue.ast, issue.actual)))
      else if (issue.kind === "Predicate" && issue.issue._tag === "Type" && issue.issue.message === undefined)
        out.push(issueAt(path, expected(issue.ast, issue.actual)))
      else walk(issue.issue, path, keys, out)
      return
    case "Transformation":
      return walk(issue.issue, path, keys, out)
    case "Type":
      out.push(issueAt(path, issue.message ?? expected(issue.ast, issue.actual)))
      return
    case "Missing":
      out.push(issueAt(path, issue.message ?? "a value is required"))
      return
    case "Unexpected":
      out.push({ path, at: "key", message: issue.message ?? "unexpected" })
      return
    case "Forbidden":
      out.push(issueAt(path, issue.message ?? "cannot be decoded here"))
      return
  }
}

const walkUnion = (issue: ParseResult.Composite, path: Path, out: Array<ConfigIssue>): void => {
  const all = (Array.isArray(issue.issues) ? issue.issues : [issue.issues]) as ReadonlyArray<ParseResult.ParseIssue>
  const members = all.filter((each) => !(each._tag === "Type" && each.ast._tag === "UndefinedKeyword"))
  const deep = members.filter((each) => !isLeaf(each))
  if (members.length === 1 && members[0] !== undefined) return walk(members[0], path, noKeys, out)
  if (deep.length === 1 && deep[0] !== undefined) return walk(deep[0], path, noKeys, out)
  out.push(issueAt(path, expected(issue.ast, issue.actual)))
}

/** A failure of the value's own type, not of something inside it. */
const isLeaf = (issue: ParseResult.ParseIssue): boolean =>
  issue._tag === "Type" ||
  (issue._tag === "Refinement" && issue.kind === "From" && isLeaf(issue.issue)) ||
  // A union of literals nested in a union (`required | none | {…}`) failed on the value itself too.
  (issue._tag === "Composite" && AST.isUnion(issue.ast) && (Array.isArray(issue.issues) ? issue.issues : [issue.issues]).every(isLeaf))

const expected = (ast: AST.AST, actual: unknown) => `expected ${describe(ast)}, got ${show(actual)}`

const describe = (ast: AST.AST): string => {
  const description = AST.getDescriptionAnnotation(ast)
  if (Option.isSome(description)) return description.value
  switch (ast._tag) {
    case "Literal":
      return JSON.stringify(ast.literal)
    case "StringKeyword":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "true or false"
    case "TypeLiteral":
      return "a map"
    case "TupleType":
      return "a list"
    case "Refinement":
    case "Transformation":
      return describe(ast.from)
    case "Union": {
      const members = ast.types.filter((member) => member._tag !== "UndefinedKeyword")
      return members.every(AST.isLiteral)
        ? `one of ${members.map(describe).join(", ")}`
        : members.map(describe).join(" or ")
    }
    default:
      return Option.getOrElse(description, () => String(ast))
  }
}

const show = (actual: unknown): string => {
  if (actual === undefined) return "nothing"
  if (actual === null) return "an empty value"
  if (Array.isArray(actual)) return actual.length === 0 ? "an empty list" : "a list"
  if (typeof actual === "object") return "a map"
  if (typeof actual === "string") return JSON.stringify(actual.length > 60 ? `${actual.slice(0, 57)}...` : actual)
  return String(actual)
}

const unknownKey = (key: string, keys: Keys): string => {
  if (keys.index !== undefined) return `invalid key \`${key}\`: expected ${describe(keys.index)}`
  if (keys.names.length === 0) return `unknown key \`${key}\``
  const near = keys.names.find((candidate) => distance(candidate, key) <= Math.max(1, Math.floor(key.length / 3)))
  const hint = near === undefined ? "" : ` (did you mean \`${near}\`?)`
  return `unknown key \`${key}\`${hint}; expected one of ${keys.names.map((k) => `\`${k}\``).join(", ")}`
}

const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
    }
    previous = current
  }
  return previous[b.length] ?? 0
}
