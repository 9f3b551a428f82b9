import { Either } from "effect"
import { Liquid, type Template } from "liquidjs"
import { untrustedBlock } from "../trust/untrustedBlock"
import { triggerVariables } from "./TriggerContext"
import { compiledFromSource } from "./compiledFromSource"

/** A Loop's `prompt:`, parsed once, at load. */
export class LiquidTemplate {
  constructor(
    readonly source: string,
    readonly templates: ReadonlyArray<Template>
  ) {}
}

/** Strict: an unknown filter fails at parse, an undefined variable fails at render. */
export const liquid = new Liquid({ strictVariables: true, strictFilters: true })
// Templates come from usine.yaml alone; tags that read other files would make rendering do I/O.
for (const tag of ["include", "render", "layout"]) delete liquid.tags[tag]
/** `{{ item.body | untrusted: "issue body" }}`: the text in an `<untrusted-data>` block (ADR 0033). */
liquid.registerFilter("untrusted", untrustedBlock)

const describeError = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/, line:(\d+), col:(\d+)$/, " (template line $1, column $2)")
}

/** Parses a prompt template and checks that it reads only the variables a trigger provides. */
export const compileLiquid = (source: string): Either.Either<LiquidTemplate, string> => {
  let templates: Array<Template>
  try {
    templates = liquid.parse(source)
  } catch (error) {
    return Either.left(`invalid Liquid template: ${describeError(error)}`)
  }
  const allowed: ReadonlyArray<string> = triggerVariables
  const unknown = liquid.globalVariablesSync(templates).filter((name) => !allowed.includes(name))
  if (unknown.length > 0) {
    return Either.left(
      `the template reads ${unknown.map((n) => `\`${n}\``).join(", ")}; a prompt can read only ${allowed.map((n) => `\`${n}\``).join(", ")}`
    )
  }
  return Either.right(new LiquidTemplate(source, templates))
}

/** A string in the file, a parsed template in the config. */
export const LiquidTemplateFromString = compiledFromSource(
  "a Liquid template",
  (input): input is LiquidTemplate => input instanceof LiquidTemplate,
  compileLiquid
)
