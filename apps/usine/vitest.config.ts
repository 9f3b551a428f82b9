import { configDefaults, defineProject } from "vitest/config"

// `*.agents.test.ts` drive agent CLIs outside the README's test command (Codex's native binary): they run only in
// the `test:agents` profile, which sets USINE_TEST_AGENTS=1.
const agents = process.env["USINE_TEST_AGENTS"] === "1"

// The demo's sample repository has its own `node --test` suite; it is the agent's to run, not Vitest's.
// The global setups build the CLI's bundle the tests run (ADR 0087), empty the run's log archive first and scan it for GitHub tokens last (ADR 0043).
export default defineProject({
  test: {
    name: "@usine/app",
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/bundleSetup.ts", "test/support/testLogsSetup.ts"],
    exclude: agents ? configDefaults.exclude : [...configDefaults.exclude, "test/**/*.agents.test.ts"]
  }
})
