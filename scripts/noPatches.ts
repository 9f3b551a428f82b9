/**
 * Issue 35, ADR 0089: no patch of a library's prototype, no Proxy over a client, no getter posing as data in the
 * source of `packages/` and `apps/`. Parses each file with TypeScript and fails on any `.prototype` access, a
 * `new Proxy(...)`, a getter in an object literal, or `Object.defineProperty`/`defineProperties` given a
 * `get`, outside the explained exceptions below.
 */
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import ts from "typescript"
import { packageFolders, root, typeScriptFiles } from "./packageFolders"

/** `file: why`, for a construct that is not what this check is about. */
const EXCEPTIONS: Record<string, string> = {}

const roots = packageFolders("src")

const hasGetter = (node: ts.Node): boolean =>
  ts.isObjectLiteralExpression(node) &&
  node.properties.some((property) => (property.name !== undefined && ts.isIdentifier(property.name) && property.name.text === "get") || ts.isGetAccessor(property))

const findings = (file: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const at = (node: ts.Node, what: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart())
    found.push(`${relative(root, file)}:${line + 1}: ${what}`)
  }
  const visit = (node: ts.Node): void => {
    // Source code has no business with a prototype: reading one into a variable is how a patch starts.
    if (ts.isPropertyAccessExpression(node) && node.name.text === "prototype") at(node, "reaches into a prototype")
    if (ts.isNewExpression(node) && node.expression.getText(source) === "Proxy") at(node, "builds a Proxy")
    if (ts.isGetAccessor(node) && ts.isObjectLiteralExpression(node.parent)) at(node, "a getter in an object literal poses as data")
    if (
      ts.isCallExpression(node) &&
      /^Object\.define(Property|Properties)$/.test(node.expression.getText(source)) &&
      node.arguments.some((argument) => hasGetter(argument) || (ts.isObjectLiteralExpression(argument) && argument.properties.some((p) => ts.isPropertyAssignment(p) && hasGetter(p.initializer))))
    ) {
      at(node, "defines a getter posing as data")
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const problems = roots.flatMap(typeScriptFiles).filter((file) => !(relative(root, file) in EXCEPTIONS)).flatMap(findings)
for (const problem of problems) console.error(problem)
if (problems.length > 0) {
  console.error("no library prototype patched, no Proxy, no getter posing as data (ADR 0089); an exception goes in scripts/noPatches.ts with its reason")
  process.exit(1)
}
console.log(`no prototype patch, Proxy or data getter in packages/ and apps/ source (${Object.keys(EXCEPTIONS).length} explained exceptions)`)
