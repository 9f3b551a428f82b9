import { gitConfigSuite } from "./support/gitConfigSuite"

// `sandbox: none`: the agent also writes the mirror and the harvest repositories of Attempts running beside it.
gitConfigSuite({ sandbox: "none" })
