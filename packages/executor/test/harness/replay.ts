import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import type { Harness, StreamParser } from "../../src/harness/Harness"

/** A recorded or hand-written agent stream from test/fixtures/agent-streams. */
export const fixturePath = (name: string): string =>
  fileURLToPath(new URL(`../fixtures/agent-streams/${name}`, import.meta.url))

export const fixtureLines = (name: string): ReadonlyArray<string> =>
  readFileSync(fixturePath(name), "utf8").split("\n").filter((line) => line !== "")

/** Feeds lines to a fresh parser, each at its own time (1000, 1001, ...). */
export const replayLines = (
  harness: Harness,
  lines: ReadonlyArray<string>
): { readonly rows: ReadonlyArray<TranscriptEntry>; readonly parser: StreamParser } => {
  const parser = harness.parser()
  const rows = lines.flatMap((line, i) => parser.line(line, 1000 + i))
  return { rows, parser }
}

export const replay = (harness: Harness, fixture: string) => replayLines(harness, fixtureLines(fixture))
