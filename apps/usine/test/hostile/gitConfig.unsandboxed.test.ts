import { gitConfigSuite } from "./support/gitConfigSuite"

// `sandbox: none`: the agent runs as the daemon's user, unconfined (ADR 0054). It could write the mirror and the
// harvest repositories beside it, or the daemon's own files; no git setting holds against that, so this file plants
// in the agent's own clone only, where the daemon's git never reads (ADR 0053).
gitConfigSuite({ sandbox: "none" })
