import type { HarnessInput } from "./Harness"

/** `--model <id>` for a CLI that takes that flag: the provider's model when the Agent has one, else its own `model`. */
export const modelArgs = (input: HarnessInput): ReadonlyArray<string> => {
  const model = input.modelProvider === undefined ? input.model : input.modelProvider.model
  return model === undefined ? [] : ["--model", model]
}
