// The house rules (issue 22, ADR 0075), run by `pnpm run deps` in `pnpm test`. Layering:
//   core -> store -> engine -> {triggers, executor} -> board -> apps, with github beside store (core only).
// Test code (test/, bench/) may import any package it declares; src never imports test code, the sims or the test kit
// (apps/usine/src may start the sims: `usine demo` and `usine sim`).
const src = (pkg) => `^packages/${pkg}/src/`
const pkg = (...names) => `^packages/(${names.join("|")})/`

/** A package's src may import these packages and no other of ours. */
const layers = {
  core: [],
  store: ["core"],
  github: ["core"],
  engine: ["core", "store"],
  triggers: ["core", "store", "engine", "github"],
  executor: ["core", "store", "engine", "github"],
  board: ["core", "store", "engine", "github", "triggers"]
}

/** The ledger's Run ports the engine uses (issue 35), and the layer that provides them; `RunReads` is the Board's. */
const runPorts = (...names) => `^packages/store/src/(${names.join("|")})\\.ts$`
const ENGINE_RUN_PORTS = ["RunClaims", "OperatorActions", "ParkedRuns", "AttemptLifecycle", "AttemptPatches", "PushRecords", "Transcripts", "RunLookup", "SqlRunStore"]

const ours = ["core", "store", "github", "engine", "triggers", "executor", "board", "github-sim", "model-sim", "testkit"]

module.exports = {
  forbidden: [
    ...Object.entries(layers).map(([name, allowed]) => ({
      name: `layer-${name}`,
      comment: `packages/${name}/src may import only ${allowed.length === 0 ? "no package of ours" : allowed.join(", ")} (ADR 0075)`,
      severity: "error",
      from: { path: src(name) },
      to: { path: pkg(...ours.filter((other) => other !== name && !allowed.includes(other))) }
    })),
    {
      name: "board-not-executor",
      comment: "the Board shows Runs; it never reaches the package that spawns processes (issue 22)",
      severity: "error",
      from: { path: "^packages/board/" },
      to: { path: "^packages/executor/" }
    },
    {
      name: "board-reads-runs-only",
      comment: "the Board reads Runs through RunReads; every write goes through the engine (issue 35). Types only from the other Run ports",
      severity: "error",
      from: { path: "^packages/board/src/" },
      to: { path: runPorts(...ENGINE_RUN_PORTS, "LoopPauses", "CycleBudgets"), dependencyTypesNot: ["type-only"] }
    },
    {
      name: "runs-change-through-the-engine",
      comment:
        "the triggers submit Events to the engine and the executor reports to the callbacks the engine lends it; neither reaches a Run port (issue 35). The triggers read pauses and budgets (LoopControl)",
      severity: "error",
      from: { path: "^packages/(triggers|executor)/src/" },
      to: { path: runPorts(...ENGINE_RUN_PORTS), dependencyTypesNot: ["type-only"] }
    },
    {
      name: "src-not-test-code",
      comment: "runtime code imports no test code, no test kit and no emulator (apps/usine/src may start the sims)",
      severity: "error",
      // The test kit is test code itself: its modules may build on one another.
      from: { path: "^(packages/[^/]+|apps/[^/]+)/src/", pathNot: "^packages/testkit/src/" },
      to: { path: ["/test/", "^packages/testkit/", "^bench/"] }
    },
    {
      name: "sims-only-in-tests-and-app",
      comment: "the GitHub emulator and the model server are test tools; of runtime code only the app starts them",
      severity: "error",
      from: { path: "^packages/[^/]+/src/", pathNot: "^packages/(github-sim|model-sim)/" },
      to: { path: "^packages/(github-sim|model-sim)/" }
    },
    {
      name: "not-to-unresolvable",
      comment: "an import that resolves to nothing: a typo, or a package the importing package does not declare",
      severity: "error",
      from: {},
      to: { couldNotResolve: true }
    },
    {
      name: "no-undeclared",
      comment: "an npm package imported but declared in no package.json on the way up",
      severity: "error",
      from: {},
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] }
    },
    {
      name: "src-not-to-dev-dep",
      comment: "runtime code imports only runtime dependencies",
      severity: "error",
      from: { path: "^(packages/[^/]+|apps/[^/]+)/src/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["type-only"] }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/" },
    tsPreCompilationDeps: true,
    combinedDependencies: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
      mainFields: ["module", "main", "types", "typings"]
    }
  }
}
