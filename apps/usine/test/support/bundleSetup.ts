import { bundleCli } from "../../scripts/bundleCli"

/**
 * Vitest global setup of @usine/app: the daemons and CLI commands the tests start run the CLI's bundle, built here
 * once per run from the sources as they are now (ADR 0087), so no test pays tsx's compile at every start.
 */
export const setup = async () => {
  const built = await bundleCli()
  console.log(
    `usine bundled for the tests: ${(built.bytes / 1e6).toFixed(1)} MB (${(built.startupBytes / 1e6).toFixed(1)} MB loaded at start) in ${built.ms} ms`
  )
}
