import { spawn, type ChildProcess } from "node:child_process"
import type { IncomingMessage, ServerResponse } from "node:http"
import { join } from "node:path"
import { Effect } from "effect"
import type { FaultInjector } from "../http/FaultInjector"
import type { RequestLog } from "../http/RequestLog"
import { isoSeconds } from "../world/SimClock"
import { followBranches } from "../world/pullWrites"
import { atLeast } from "../world/SimUser"
import type { SimWorld } from "../world/SimWorld"
import { listBranches } from "./BareRepository"
import { isolatedGitEnv } from "./runGit"

/** `/{owner}/{name}.git/...`: the smart-HTTP paths git uses, like github.com's. */
export const GIT_PATH = /^\/([^/]+)\/([^/]+?)\.git(\/.*)?$/

/** Token from HTTP Basic credentials: GitHub accepts it as the password (`x-access-token:TOKEN`) or the user name. */
const basicToken = (header: string | undefined): string | undefined => {
  const match = header?.match(/^basic\s+(\S+)$/i)
  if (match?.[1] === undefined) return undefined
  const decoded = Buffer.from(match[1], "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  const user = colon < 0 ? decoded : decoded.slice(0, colon)
  const password = colon < 0 ? "" : decoded.slice(colon + 1)
  return password !== "" && password !== "x-oauth-basic" ? password : user
}

/** Serves each repository's bare repository through `git http-backend` (CGI), with token auth and push permission. */
export class GitHttpBackend {
  private readonly children = new Set<ChildProcess>()

  constructor(
    private readonly world: SimWorld,
    private readonly log: RequestLog,
    /** The control API's faults; a git path takes only `status` (`times` too), answered before git runs. */
    private readonly faults?: FaultInjector
  ) {}

  /** Answers one git request; `match` is `GIT_PATH` applied to its path. */
  handle(req: IncomingMessage, res: ServerResponse, match: RegExpMatchArray): void {
    const url = new URL(req.url ?? "/", "http://sim")
    const method = req.method ?? "GET"
    let logged = false
    const receivedAtMs = this.world.now()
    const done = (status: number, login: string | null) => {
      if (logged) return
      logged = true
      this.log.record({ method, path: url.pathname + url.search, status, conditional: false, counted: false, login, at: isoSeconds(this.world.now()), receivedAtMs })
    }
    const refuse = (status: number, message: string, login: string | null, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "text/plain", ...headers }).end(`${message}\n`)
      done(status, login)
    }
    const token = basicToken(req.headers.authorization) ?? ""
    const user = this.world.userOfToken(token)
    if (user === undefined) return refuse(401, "Authentication required", null, { "www-authenticate": 'Basic realm="GitHub"' })
    const repo = this.world.repositories.get(`${match[1]}/${match[2]}`.toLowerCase())
    const role = repo === undefined ? "none" : this.world.permission(user.login, repo)
    if (repo === undefined || !atLeast(role, "read")) return refuse(404, "Repository not found.", user.login)
    const pushing = url.searchParams.get("service") === "git-receive-pack" || url.pathname.endsWith("/git-receive-pack")
    const lacking = this.world.fineGrained.refusal(token, { permission: "contents", level: pushing ? "write" : "read" })
    if ((pushing && !atLeast(role, "write")) || lacking !== undefined) {
      return refuse(403, `Permission to ${repo.fullName}.git denied to ${user.login}.`, user.login)
    }
    const fault = this.faults?.take(method, url.pathname)
    if (fault?.status !== undefined) return refuse(fault.status, "The requested URL returned an error (an injected fault).", user.login)
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      ...isolatedGitEnv(),
      GIT_PROJECT_ROOT: join(this.world.dataDir, "git"),
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: `/${repo.owner.toLowerCase()}/${repo.name.toLowerCase()}.git${match[3] ?? ""}`,
      REQUEST_METHOD: method,
      QUERY_STRING: url.search.replace(/^\?/, ""),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_USER: user.login,
      REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.receivepack",
      GIT_CONFIG_VALUE_0: "true"
    }
    const encoding = req.headers["content-encoding"]
    if (encoding !== undefined) env["HTTP_CONTENT_ENCODING"] = encoding
    const protocol = req.headers["git-protocol"]
    if (typeof protocol === "string") env["HTTP_GIT_PROTOCOL"] = protocol
    const length = req.headers["content-length"]
    if (length !== undefined) env["CONTENT_LENGTH"] = length

    const child = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "pipe"] })
    this.children.add(child)
    req.pipe(child.stdin)
    child.stdin.on("error", () => undefined)
    res.on("close", () => {
      if (child.exitCode === null) child.kill("SIGKILL")
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    let head = Buffer.alloc(0)
    let status = 200
    const readHead = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk])
      const end = head.indexOf("\r\n\r\n")
      if (end < 0) return
      const headers: Record<string, string> = {}
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":")
        if (colon < 0) continue
        const name = line.slice(0, colon).trim()
        const value = line.slice(colon + 1).trim()
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10)
        else headers[name] = value
      }
      child.stdout.off("data", readHead)
      res.writeHead(status, headers)
      res.write(head.subarray(end + 4))
      child.stdout.pipe(res, { end: false })
    }
    child.stdout.on("data", readHead)
    child.on("error", (error) => {
      this.children.delete(child)
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
      res.end(`git http-backend failed: ${error.message}\n`)
      done(500, user.login)
    })
    child.on("close", (code) => {
      this.children.delete(child)
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain" })
        status = 500
        res.write(`git http-backend exited with ${code}: ${stderr}\n`)
      }
      // A push becomes visible to the pulls API before git's client sees the response end.
      const refresh =
        pushing && method === "POST"
          ? listBranches(repo.gitDir).pipe(
              Effect.tap((branches) => Effect.sync(() => followBranches(this.world, repo, branches))),
              Effect.catchAll((error) => Effect.logWarning("github-sim could not read branches after a push", error.message))
            )
          : Effect.void
      void Effect.runPromise(refresh).finally(() => {
        res.end()
        done(status, user.login)
      })
    })
  }

  /** Kills git processes still serving requests (the server is stopping). */
  stop(): void {
    for (const child of this.children) child.kill("SIGKILL")
    this.children.clear()
  }
}
