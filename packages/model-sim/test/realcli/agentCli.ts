import { fileURLToPath } from "node:url"

/** The real CLIs, installed as this package's devDependencies (`pnpm install` puts their launchers here). */
export const agentCli = (name: "pi" | "codex" | "claude"): string =>
  fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url))
