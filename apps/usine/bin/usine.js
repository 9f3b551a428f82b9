#!/usr/bin/env node
// usine runs from its TypeScript sources; tsx compiles them as they load. The tsconfig is named explicitly: run from
// any other folder, tsx would look for one there and compile the Board's pages for the wrong JSX runtime.
import { fileURLToPath } from "node:url"
import { register } from "tsx/esm/api"

register({ tsconfig: fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url)) })
await import("../src/main.ts")
