import { version } from "../package.json"

// `usine --version` (or `-V`) alone is answered here, before @effect/cli and effect load (some 130 ms of a start,
// ADR 0108): the version is the app's, inlined by the bundle. Everything else, `--help` included, is the CLI's.
const asked = process.argv.slice(2)
if (asked.length === 1 && (asked[0] === "--version" || asked[0] === "-V")) process.stdout.write(`${version}\n`)
else await import("./cli")
