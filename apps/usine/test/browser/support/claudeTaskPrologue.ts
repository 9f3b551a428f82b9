/**
 * The opening of a Claude-shaped test agent's script (plain ES module source): `emit` writes one stream-json event,
 * and `prompt` is the task from Claude Code's first stream-json line on stdin (stdin stays open, ADR 0062).
 */
export const CLAUDE_TASK_PROLOGUE = `const emit = (event) => process.stdout.write(JSON.stringify(event) + "\\n")
const line = await new Promise((resolve) => {
  let buffered = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk) => {
    buffered += chunk
    const end = buffered.indexOf("\\n")
    if (end >= 0) { process.stdin.destroy(); resolve(buffered.slice(0, end)) }
  })
})
const prompt = JSON.parse(line).message.content.map((part) => part.text ?? "").join("")`
