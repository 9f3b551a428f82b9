import { shellQuote } from "../shellQuote"

/**
 * The `sh -c` program that owns an agent's session: `$1` is the Attempt's folder, `$2` the name of its claim file,
 * the rest is the agent's argv. Its first act is to create the claim file holding its own `/proc` stat, with `ln`
 * so the file appears whole or not at all and only once: a start the daemon gave up on (it created the claim file
 * first, ADR 0048) exits 75 before it runs anything, and a start the daemon did not record is found from the file.
 * It loads the environment from `env.sh` (then deletes it: secrets never sit in argv nor stay on disk). With a
 * `stdin.feed` FIFO it owns the agent's stdin (ADR 0062): a feeder subshell, the FIFO's only writer, writes `stdin`,
 * then each `inbox/*.msg` in name order until `inbox/close` finds no new message (looked for once more after it saw
 * `close`, ADR 0093), and ends, closing the agent's stdin; it dies with the agent. A message is moved to `inbox/fed/`
 * and any `close` removed before the agent can read it: once the agent answers it, the daemon's view (fed, answered,
 * closed or not) is final, as it must be when that answer is the last line an idle agent writes. It polls twice a second (each second where
 * `sleep` takes whole seconds only). An older `stdin.fifo` is held open for the
 * daemon to write to. It appends stdout and stderr to files, survives SIGTERM long enough
 * to record the agent's status, and writes that status to `exit` atomically. Utilities go through `command -p`
 * because the agent's PATH may not have them.
 */
export const wrapperScript = `d=$1; c=$2; shift 2
command -p cat /proc/$$/stat >"$d/$c.$$" && command -p ln "$d/$c.$$" "$d/$c" 2>/dev/null
claimed=$?
command -p rm -f "$d/$c.$$"
[ "$claimed" = 0 ] || exit 75
. "$d/env.sh" && command -p rm -f "$d/env.sh"
(umask 077; : >>"$d/stream.jsonl"; : >>"$d/stderr.log")
trap : TERM
if [ -p "$d/stdin.feed" ]; then
  (
    if [ -f "$d/stdin" ]; then command -p cat "$d/stdin" || exit 0; fi
    while :; do
      fed=
      for m in "$d"/inbox/*.msg; do
        [ -f "$m" ] || continue
        f=$d/inbox/fed/\${m##*/}
        command -p mv -f "$m" "$f" || continue
        command -p rm -f "$d/inbox/close"
        fed=1
        command -p cat "$f" || exit 0
      done
      if [ -z "$fed" ] && [ -f "$d/inbox/close" ]; then
        for m in "$d"/inbox/*.msg; do [ -f "$m" ] && continue 2; done
        exit 0
      fi
      command -p sleep 0.5 2>/dev/null || command -p sleep 1
    done
  ) >"$d/stdin.feed" &
  feeder=$!
  "$@" <"$d/stdin.feed" >>"$d/stream.jsonl" 2>>"$d/stderr.log"
  code=$?
  kill "$feeder" 2>/dev/null
elif [ -p "$d/stdin.fifo" ]; then
  exec 3<>"$d/stdin.fifo"
  feeder=
  if [ -f "$d/stdin" ]; then command -p cat "$d/stdin" >&3 & feeder=$!; fi
  "$@" <&3 3<&- >>"$d/stream.jsonl" 2>>"$d/stderr.log"
  code=$?
  if [ -n "$feeder" ]; then kill "$feeder" 2>/dev/null; fi
else
  if [ -f "$d/stdin" ]; then in=$d/stdin; else in=/dev/null; fi
  "$@" <"$in" >>"$d/stream.jsonl" 2>>"$d/stderr.log"
  code=$?
fi
printf '%s\\n' "$code" >"$d/exit.tmp" && command -p mv -f "$d/exit.tmp" "$d/exit"
`

const name = /^[A-Za-z_][A-Za-z0-9_]*$/

/** `env.sh`: one `export` per variable, or the first name a shell variable cannot have. */
export const environmentScript = (env: Readonly<Record<string, string>>): string | { readonly invalid: string } => {
  const lines: Array<string> = []
  for (const [key, value] of Object.entries(env)) {
    if (!name.test(key)) return { invalid: key }
    lines.push(`export ${key}=${shellQuote(value)}`)
  }
  return `${lines.join("\n")}\n`
}
