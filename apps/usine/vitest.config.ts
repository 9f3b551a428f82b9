import { defineProject } from "vitest/config"

// The demo's sample repository has its own `node --test` suite; it is the agent's to run, not Vitest's.
export default defineProject({
  test: { name: "@usine/app", include: ["test/**/*.test.ts"] }
})
