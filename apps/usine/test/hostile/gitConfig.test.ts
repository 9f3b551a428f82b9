import { gitConfigSuite } from "./support/gitConfigSuite"

// The agent in the Worker's default sandbox (ADR 0054): what it plants in its own clone must still come to nothing.
gitConfigSuite()
