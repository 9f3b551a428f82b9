import { defineProject } from "vitest/config"

// `*.agents.test.ts` drive CLIs outside the README's test command (Codex's native binary): they run only in the
// `test:agents` profile, which sets USINE_TEST_AGENTS=1.
const agents = process.env["USINE_TEST_AGENTS"] === "1"

export default defineProject({
  test: {
    name: "@usine/model-sim",
    include: ["test/**/*.test.ts"],
    exclude: agents ? [] : ["test/**/*.agents.test.ts"]
  }
})
