import { fileURLToPath } from "node:url"
import { CLI_BUNDLE } from "../../scripts/bundleCli"

/** What tests run as `usine`: the CLI's bundle, built by the project's global setup from the current sources. */
export const USINE_BIN = CLI_BUNDLE

/** The contributor's entry (`bin/usine.js`, tsx over the sources), for the tests about it. */
export const SOURCE_BIN = fileURLToPath(new URL("../../bin/usine.js", import.meta.url))
