import { type ASTNode, Environment } from "@marcbachmann/cel-js"
import { describeCelError } from "./CelExpression"
import { type ContextType, celTypeName, describeValues, type ObjectType, objectTypesOf, str } from "./ContextType"

/** A field's declared type and how its path reads in a message (`item.checks.all[].conclusion`). */
interface Typed {
  readonly type: ContextType
  readonly path: string
}

type Scope = ReadonlyMap<string, Typed>

const environments = new Map<string, Environment>()

/** A CEL environment where `item` has the declared type: unknown fields and wrong operand types fail its check. */
const environmentFor = (item: ObjectType): Environment => {
  const known = environments.get(item.name)
  if (known !== undefined) return known
  const registered = new Set<string>()
  let environment = new Environment({ unlistedVariablesAreDyn: false })
  for (const type of objectTypesOf(item)) {
    if (registered.has(type.name)) continue
    registered.add(type.name)
    const schema = Object.fromEntries(Object.entries(type.fields).map(([key, field]) => [key, celTypeName(field)]))
    environment = environment.registerType({ name: type.name, schema })
  }
  environment = environment.registerVariable("item", item.name).registerVariable("repository", "string")
  environments.set(item.name, environment)
  return environment
}

const isNode = (value: unknown): value is ASTNode =>
  typeof value === "object" && value !== null && "op" in value && "args" in value

/** The AST nodes directly under a node, whatever its operator's argument shape. */
const children = (node: ASTNode): ReadonlyArray<ASTNode> => {
  const found: Array<ASTNode> = []
  const visit = (value: unknown): void => {
    if (isNode(value)) found.push(value)
    else if (Array.isArray(value)) value.forEach(visit)
  }
  if (node.op !== "value") visit(node.args)
  return found
}

/** The declared type of a field access (`item.state`, `c.conclusion` inside a macro over a list), if it is one. */
const typeOf = (node: ASTNode, scope: Scope): Typed | undefined => {
  if (node.op === "id") return scope.get(node.args)
  if (node.op === "." || node.op === ".?") {
    const [base, key] = node.args
    const typed = typeOf(base, scope)
    if (typed?.type.kind !== "object") return undefined
    const field = typed.type.fields[key]
    return field === undefined ? undefined : { type: field, path: `${typed.path}.${key}` }
  }
  if (node.op === "[]") {
    const typed = typeOf(node.args[0], scope)
    return typed?.type.kind === "list" ? { type: typed.type.of, path: `${typed.path}[]` } : undefined
  }
  return undefined
}

const stringLiteral = (node: ASTNode): string | undefined =>
  node.op === "value" && typeof node.args === "string" ? node.args : undefined

const macros = new Set(["all", "exists", "exists_one", "filter", "map"])

const sourceOf = (node: ASTNode): string => node.input.slice(node.range.start, node.range.end)

/** Comparisons in the expression with a string literal the field's declared values never include. */
const impossibleLiterals = (root: ASTNode, item: ObjectType): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const refuse = (node: ASTNode, typed: Typed, literal: string) => {
    const values = typed.type.kind === "string" ? typed.type.values : undefined
    if (values === undefined || values.includes(literal)) return
    problems.push(`\`${sourceOf(node)}\` can never hold: ${typed.path} is one of ${describeValues(values)}`)
  }
  const walk = (node: ASTNode, scope: Scope): void => {
    if (node.op === "==" || node.op === "!=") {
      const [left, right] = node.args
      for (const [field, literal] of [[left, right], [right, left]] as const) {
        const typed = typeOf(field, scope)
        const value = stringLiteral(literal)
        if (typed !== undefined && value !== undefined) refuse(node, typed, value)
      }
    }
    if (node.op === "in") {
      const [left, right] = node.args
      const needle = typeOf(left, scope)
      if (needle !== undefined && right.op === "list") {
        for (const element of right.args) {
          const value = stringLiteral(element)
          if (value !== undefined) refuse(node, needle, value)
        }
      }
      const haystack = typeOf(right, scope)
      const value = stringLiteral(left)
      if (haystack?.type.kind === "list" && value !== undefined) {
        refuse(node, { type: haystack.type.of, path: `${haystack.path}[]` }, value)
      }
    }
    if (node.op === "rcall" && macros.has(node.args[0])) {
      const [, receiver, [variable, ...body]] = node.args
      const list = typeOf(receiver, scope)
      walk(receiver, scope)
      if (variable?.op === "id" && list?.type.kind === "list") {
        const inner = new Map(scope).set(variable.args, { type: list.type.of, path: `${list.path}[]` })
        body.forEach((child) => walk(child, inner))
        return
      }
      body.forEach((child) => walk(child, scope))
      return
    }
    children(node).forEach((child) => walk(child, scope))
  }
  walk(root, new Map([["item", { type: item, path: "item" }], ["repository", { type: str, path: "repository" }]]))
  return problems
}

/**
 * What is wrong with an `if:` against the declared context of its Loop: a type error (an unknown field, a string
 * compared with a number) or a comparison with a literal its field can never hold. Empty when it is sound. The
 * expression is assumed to parse; `compileCel` reports one that does not.
 */
export const conditionProblems = (source: string, item: ObjectType): ReadonlyArray<string> => {
  const environment = environmentFor(item)
  let program: ReturnType<Environment["parse"]>
  try {
    program = environment.parse(source)
  } catch {
    return []
  }
  const checked = program.check()
  if (!checked.valid) {
    return [`invalid CEL expression: ${checked.error ? describeCelError(checked.error) : "type check failed"}`]
  }
  return impossibleLiterals(program.ast, item)
}
