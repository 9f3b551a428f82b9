/**
 * ADR 0094 addendum: @effect/vitest's `layer` assigns its testers to vitest's shared `it`, so a later top-level layer
 * is built inside an earlier one (in its file, and in the next file under `--no-isolate`). Tests take `layer` from
 * `@usine/testkit/layer`, which never does; this check fails on an import of `layer` from `@effect/vitest` and on
 * `it.layer(...)` called on the imported `it` rather than on a layer body's own `it`.
 */
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import ts from "typescript"
import { packageFolders, root, typeScriptFiles } from "./packageFolders"

/** `folder: why`, for tests not yet moved over. */
const PENDING: Record<string, string> = {}

const folders = packageFolders("test").filter((dir) => PENDING[relative(root, dir)] === undefined)

/** True when a function around `node` has a parameter named `it`: then `it.layer` nests, as it should. */
const inLayerBody = (node: ts.Node): boolean => {
  for (let at: ts.Node | undefined = node.parent; at !== undefined; at = at.parent) {
    if (ts.isFunctionLike(at) && at.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === "it")) return true
  }
  return false
}

const findings = (file: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const at = (node: ts.Node, what: string) =>
    found.push(`${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`)
  const visit = (node: ts.Node): void => {
    if (
      ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === "@effect/vitest" &&
      node.importClause?.namedBindings !== undefined && ts.isNamedImports(node.importClause.namedBindings) &&
      node.importClause.namedBindings.elements.some((e) => (e.propertyName ?? e.name).text === "layer")
    ) at(node, "imports layer from @effect/vitest: take it from @usine/testkit/layer")
    if (
      ts.isPropertyAccessExpression(node) && node.name.text === "layer" && ts.isIdentifier(node.expression) &&
      node.expression.text === "it" && !inLayerBody(node)
    ) at(node, "calls layer on @effect/vitest's it: use layer from @usine/testkit/layer")
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const files = folders.flatMap(typeScriptFiles)
const problems = files.flatMap(findings)
for (const problem of problems) console.error(problem)
if (problems.length > 0) process.exit(1)
console.log(`no test builds a layer on vitest's shared it (${files.length} files)`)
