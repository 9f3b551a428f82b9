/**
 * What `if:` and `prompt:` see for one Item: `item` is the Item's payload (for a schedule Loop, the Tick under
 * `item.tick`) and `repository` its `owner/name`. (`loop` is a reserved word in CEL, so the Loop's name is not offered.)
 */
export interface TriggerContext {
  readonly item: unknown
  readonly repository: string
}

/** The only root names an `if:` expression or a prompt template may read. */
export const triggerVariables = ["item", "repository"] as const
