/** One reason the push guards refuse an Attempt's change; `detail` never repeats a secret. */
export interface GuardViolation {
  readonly guard: "forbidden_paths" | "secret_scan" | "max_changed_files" | "links"
  readonly path?: string
  readonly line?: number
  readonly detail: string
}
