import { boardWorldWith } from "./BoardWorld"
import { CLAUDE_AGENT_FILE, claudeAgentScript, showcaseConfig } from "./showcaseConfig"

/** A `BoardWorld` on the showcase configuration, its Claude-shaped agent written beside usine.yaml. */
export const ShowcaseWorldLive = boardWorldWith(showcaseConfig, { [CLAUDE_AGENT_FILE]: claudeAgentScript() })
