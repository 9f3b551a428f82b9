#!/usr/bin/env node
// usine runs from its TypeScript sources; tsx compiles them as they load.
import { register } from "tsx/esm/api"

register()
await import("../src/main.ts")
