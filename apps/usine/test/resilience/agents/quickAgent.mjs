#!/usr/bin/env node
// The resilience suite's agent: a `command` Agent that does in well under two seconds what a real one does in minutes
// (reads the prompt, changes a file, commits), or misbehaves on purpose. The mode is its first argument:
//   ok       sleeps 0-MAX ms (second argument, default 1200) so a kill can land while it runs, then commits a note
//   slow     sleeps exactly the second argument in ms (default 5000), printing a line a second, then commits
//   fail     prints a reason and exits 7
//   hang     prints one line, then says nothing and never exits (the stall limit must end it); given a marker file
//            (second argument), it hangs only when the marker does not exist yet, and creates it: it hangs once
//   flood    prints MiB lines of output (second argument, default 8 MiB), then commits like `ok`
//   badjson  prints lines that are not JSON objects, truncated JSON and a NUL, then commits like `ok`
//   fill     writes one file until the disk is full, then exits 1
//   dirty    writes a note and leaves it uncommitted: usine commits it, and a commit made again later has another sha
import { spawnSync } from "node:child_process"
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync, writeSync } from "node:fs"

const [mode = "ok", arg] = process.argv.slice(2)
const say = (line) => process.stdout.write(`${line}\n`)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The first line on stdin: a built-in harness (codex, claude, pi) feeds its task there and keeps stdin open (ADR 0062). */
const firstLine = () => {
  const buffer = Buffer.alloc(64 * 1024)
  let text = ""
  for (;;) {
    const read = readSync(0, buffer, 0, buffer.length, null)
    if (read === 0) return text
    text += buffer.toString("utf8", 0, read)
    const end = text.indexOf("\n")
    if (end >= 0) return text.slice(0, end)
  }
}

const prompt = (() => {
  try {
    return process.env.USINE_PROMPT_FILE === undefined ? firstLine() : readFileSync(process.env.USINE_PROMPT_FILE, "utf8")
  } catch {
    return ""
  }
})()

const git = (...args) => {
  const result = spawnSync("git", ["-c", "user.name=resilience agent", "-c", "user.email=agent@usine.invalid", ...args], { encoding: "utf8" })
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.trim()}`)
  return result.stdout.trim()
}

const commitNote = () => {
  mkdirSync("notes", { recursive: true })
  const name = `notes/${Date.now()}-${process.pid}.md`
  writeFileSync(name, `${prompt.length} bytes of prompt\n${prompt.slice(0, 200)}\n`)
  git("add", "-A")
  git("commit", "--quiet", "-m", `Add ${name}`)
  say(`committed ${git("rev-parse", "--short", "HEAD")}`)
}

const main = async () => {
  say(`mode ${mode}, prompt of ${prompt.length} bytes`)
  switch (mode) {
    case "ok":
      await sleep(Math.floor(Math.random() * Number(arg ?? 1200)))
      return commitNote()
    case "slow": {
      const until = Date.now() + Number(arg ?? 5_000)
      while (Date.now() < until) {
        say(`working, ${until - Date.now()} ms to go`)
        await sleep(Math.min(1_000, until - Date.now()))
      }
      return commitNote()
    }
    case "fail":
      say("giving up on purpose")
      process.exit(7)
    case "hang":
      if (arg !== undefined && existsSync(arg)) return commitNote()
      if (arg !== undefined) writeFileSync(arg, "hung once\n")
      setInterval(() => {}, 1 << 30)
      return
    case "flood": {
      const bytes = Number(arg ?? 8 * 1024 * 1024)
      const line = `${"flood ".repeat(170)}\n`
      for (let written = 0; written < bytes; written += line.length) process.stdout.write(line)
      return commitNote()
    }
    case "badjson":
      say("this is not JSON")
      say('{"type": "item.completed", "item": {"type": "agent_message", "text": "cut off')
      say("[1, 2, 3]")
      say('"a string"')
      process.stdout.write("\u0000\u0001 binary\n")
      return commitNote()
    case "dirty":
      mkdirSync("notes", { recursive: true })
      writeFileSync(`notes/${Date.now()}-${process.pid}.md`, `${prompt.slice(0, 200)}\n`)
      return say("left a note uncommitted")
    case "fill": {
      const fd = openSync("filler.bin", "w")
      const chunk = Buffer.alloc(256 * 1024, 120)
      try {
        for (;;) writeSync(fd, chunk)
      } catch (error) {
        say(`the disk is full: ${error.code}`)
      } finally {
        closeSync(fd)
      }
      process.exit(1)
    }
    default:
      say(`unknown mode ${mode}`)
      process.exit(2)
  }
}

main().catch((error) => {
  say(`error: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
