/** One request the Board must refuse, or handle, without changing anything. */
export interface BoardCase {
  readonly name: string
  readonly method: "GET" | "POST"
  readonly path: string
  /** A JSON value, or raw text sent as JSON (malformed on purpose). */
  readonly body?: unknown
  readonly raw?: string
  readonly status: number
  /** The field a 400 must name. */
  readonly field?: string
}

const RUN = "0123456789abcdef0123456789abcdef"
const ITEM = JSON.stringify(["github", "acme/widgets", 1])

/**
 * Every Board endpoint with missing, extra and wrong fields. `known` is the id of a Run that exists and has ended:
 * a well-formed action on it is refused by the state machine (409), never by a crash (500).
 */
export const boardCases = (known: string): ReadonlyArray<BoardCase> => [
  { name: "approve: not a run id", method: "POST", path: "/runs/..%2F..%2Fetc/approve", body: {}, status: 400, field: "id" },
  { name: "approve: version is text", method: "POST", path: `/runs/${RUN}/approve`, body: { version: "seven" }, status: 400, field: "version" },
  { name: "approve: negative version", method: "POST", path: `/runs/${RUN}/approve`, body: { version: -1 }, status: 400, field: "version" },
  { name: "approve: unknown run, extra fields", method: "POST", path: `/runs/${RUN}/approve`, body: { extra: true, nested: { a: [1] } }, status: 404 },
  { name: "approve: an ended run", method: "POST", path: `/runs/${known}/approve`, body: { surplus: "x" }, status: 409 },
  { name: "cancel: version is an object", method: "POST", path: `/runs/${RUN}/cancel`, body: { version: { n: 1 } }, status: 400, field: "version" },
  { name: "cancel: an ended run", method: "POST", path: `/runs/${known}/cancel`, body: {}, status: 409 },
  { name: "retry: upper-case id", method: "POST", path: `/runs/${RUN.toUpperCase()}/retry`, body: {}, status: 400, field: "id" },
  { name: "retry: a succeeded run", method: "POST", path: `/runs/${known}/retry`, body: { back: "https://evil.example" }, status: 409 },
  { name: "edit-and-retry: agent is not a name", method: "POST", path: `/runs/${known}/edit-and-retry`, body: { agent: "Rm -rf /" }, status: 400, field: "agent" },
  { name: "edit-and-retry: task is a number", method: "POST", path: `/runs/${known}/edit-and-retry`, body: { task: 42 }, status: 400, field: "task" },
  { name: "resolve-failure: unknown run", method: "POST", path: `/runs/${RUN}/resolve-failure`, body: {}, status: 404 },
  { name: "intervene: no attemptId", method: "POST", path: `/runs/${known}/intervene`, body: { message: "hi" }, status: 400, field: "attemptId" },
  { name: "intervene: empty message", method: "POST", path: `/runs/${known}/intervene`, body: { attemptId: `${known}/main/1`, message: "  " }, status: 400, field: "message" },
  { name: "intervene: message over 20,000 characters", method: "POST", path: `/runs/${known}/intervene`, body: { attemptId: `${known}/main/1`, message: "x".repeat(20_001) }, status: 400, field: "message" },
  { name: "intervene: attemptId with a path", method: "POST", path: `/runs/${known}/intervene`, body: { attemptId: "../../x", message: "hi" }, status: 400, field: "attemptId" },
  { name: "pause: loop is not a name", method: "POST", path: "/loops/DROP%20TABLE/pause", body: {}, status: 400, field: "loop" },
  { name: "pause: unknown loop", method: "POST", path: "/loops/nope/pause", body: {}, status: 404 },
  { name: "unpause: unknown loop, extra fields", method: "POST", path: "/loops/nope/unpause", body: { paused: "maybe" }, status: 404 },
  { name: "budget reset: no itemKey", method: "POST", path: "/budgets/reset", body: {}, status: 400, field: "itemKey" },
  { name: "budget reset: itemKey not a key", method: "POST", path: "/budgets/reset", body: { itemKey: "[1,2]" }, status: 400, field: "itemKey" },
  { name: "budget reset: itemKey is a number", method: "POST", path: "/budgets/reset", body: { itemKey: 7 }, status: 400, field: "itemKey" },
  { name: "cap raise: neither tokens nor cost", method: "POST", path: "/budgets/raise", body: {}, status: 400, field: "tokens" },
  { name: "cap raise: negative tokens", method: "POST", path: "/budgets/raise", body: { tokens: -5 }, status: 400, field: "tokens" },
  { name: "cap raise: cost is text", method: "POST", path: "/budgets/raise", body: { costUsd: "lots" }, status: 400, field: "costUsd" },
  { name: "cap raise: loop is not a name", method: "POST", path: "/budgets/raise", body: { loop: "A B", tokens: 5 }, status: 400, field: "loop" },
  { name: "clear no-progress: no loop", method: "POST", path: "/brakes/clear-no-progress", body: { itemKey: ITEM }, status: 400, field: "loop" },
  { name: "clear no-progress: no itemKey", method: "POST", path: "/brakes/clear-no-progress", body: { loop: "hostile" }, status: 400, field: "itemKey" },
  { name: "move: nothing", method: "POST", path: "/board/move", body: {}, status: 400, field: "repository" },
  { name: "move: repository with a path", method: "POST", path: "/board/move", body: { repository: "../../etc", number: 1, column: "Ready" }, status: 400, field: "repository" },
  { name: "move: number is text", method: "POST", path: "/board/move", body: { repository: "acme/widgets", number: "one", column: "Ready" }, status: 400, field: "number" },
  { name: "move: empty column", method: "POST", path: "/board/move", body: { repository: "acme/widgets", number: 1, column: "" }, status: 400, field: "column" },
  { name: "move: malformed JSON body", method: "POST", path: "/board/move", raw: '{"repository": "acme/widgets", "number": ', status: 400, field: "repository" },
  { name: "move: body is an array", method: "POST", path: "/board/move", body: [1, 2, 3], status: 400 },
  { name: "runs: unknown state", method: "GET", path: "/api/runs?state=Exploded", status: 400, field: "state" },
  { name: "runs: since is not a time", method: "GET", path: "/api/runs?since=yesterday-ish", status: 400, field: "since" },
  { name: "runs: item is not owner/name#n", method: "GET", path: "/api/runs?item=%3Cscript%3E", status: 400, field: "item" },
  { name: "runs: extra parameters", method: "GET", path: "/api/runs?foo=bar&limit=-1", status: 200 },
  { name: "run: not an id", method: "GET", path: "/api/runs/%27%20OR%201%3D1", status: 400, field: "id" },
  { name: "run: attempt is text", method: "GET", path: `/api/runs/${known}?attempt=first`, status: 400, field: "attempt" },
  { name: "run: unknown id", method: "GET", path: `/api/runs/${RUN}`, status: 404 },
  { name: "stream: after is negative", method: "GET", path: `/api/runs/${known}/stream?after=-3`, status: 400, field: "after" }
]
