import { fileURLToPath } from "node:url"

/**
 * Where test runs keep the logs of every process they started (ADR 0043): `<checkout>/.test-logs`, git-ignored, one
 * `run-<pid>` folder for each Vitest run, so runs at the same time in one checkout never mix.
 */
export const testLogsDir = fileURLToPath(new URL("../../../../.test-logs", import.meta.url))
