import { defineConfig } from "vitest/config"

// Every run ends with its slowest files (issue 35). The README's test command runs the packages whose tests share
// no global state without isolation (`test:shared`), the others a fresh process per file (`test:isolated`, ADR 0088).
export default defineConfig({
  test: {
    reporters: ["default", "./scripts/SlowestFiles.ts"],
    projects: ["packages/*", "apps/*"]
  }
})
