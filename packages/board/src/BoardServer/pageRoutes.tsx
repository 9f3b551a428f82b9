import { Effect, Exit } from "effect"
import type { Context, Hono } from "hono"
import type { Child } from "hono/jsx"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import type { AuditTrail } from "../AuditTrail"
import type { BoardViews } from "../BoardViews"
import { needsYouCount } from "../BoardViews/needsYouView"
import { AuditPage } from "../pages/AuditPage"
import { BoardPage } from "../pages/BoardPage"
import { LoopsPage } from "../pages/LoopsPage"
import { NeedsYouPage } from "../pages/NeedsYouPage"
import { ProblemPage } from "../pages/ProblemPage"
import { RunPage } from "../pages/RunPage"
import { RunsPage } from "../pages/RunsPage"
import { UsagePage } from "../pages/UsagePage"
import { WorkersPage } from "../pages/WorkersPage"
import type { BoardEnv } from "./BoardEnv"
import { AuditQuerySchema, RunPageQuery, RunParams, RunsQuerySchema } from "./inputs"
import { parseInput } from "./parseInput"
import { type PageFrame, renderPage } from "./renderPage"
import { logUnexpected, problemOf, type RunExit } from "./respond"

interface PageDeps {
  readonly views: BoardViews
  readonly audit: AuditTrail
  readonly run: RunExit
  readonly redact: (text: string) => string
}

/**
 * Every page and its JSON twin under `/api/`: both call the same data function, so what the page shows is what the
 * API returns.
 */
export const pageRoutes = (app: Hono<BoardEnv>, deps: PageDeps) => {
  const twin = <A, E>(
    paths: { readonly page: string; readonly api: string },
    frame: (c: Context<BoardEnv>, view: A) => PageFrame,
    data: (c: Context<BoardEnv>) => Effect.Effect<A, E>,
    render: (view: A, csrf: string) => Child
  ) => {
    const answer = async (c: Context<BoardEnv>, json: boolean) => {
      const exit = await deps.run(Effect.tapErrorCause(data(c), logUnexpected))
      if (Exit.isSuccess(exit)) {
        return json ? c.json(exit.value as object) : renderPage(c, frame(c, exit.value), render(exit.value, c.get("csrf")))
      }
      const problem = problemOf(exit.cause, deps.redact)
      return json
        ? c.json(problem.body, problem.status)
        : renderPage(c, { title: "Refused", current: "" }, <ProblemPage message={problem.body.message} back={undefined} />, problem.status)
    }
    app.get(paths.page, (c) => answer(c, false))
    app.get(paths.api, (c) => answer(c, true))
  }

  twin(
    { page: "/", api: "/api/needs-you" },
    (_, view) => ({ title: "Needs you", current: "/", live: "page", documentTitle: needsYouCount(view) === "0" ? undefined : `(${needsYouCount(view)}) Needs you` }),
    () => deps.views.needsYou,
    (view, csrf) => <NeedsYouPage view={view} csrf={csrf} />
  )
  twin(
    { page: "/runs", api: "/api/runs" },
    () => ({ title: "Runs", current: "/runs", live: "page" }),
    (c) =>
      Effect.flatMap(parseInput(RunsQuerySchema, c.req.query()), (query) => {
        const item = query.item === undefined ? undefined : /^(.+)#(\d+)$/.exec(query.item)
        return deps.views.runs(query, item ? itemKeyOf(item[1] ?? "", Number(item[2])) : undefined)
      }),
    (view) => <RunsPage view={view} />
  )
  twin(
    { page: "/runs/:id", api: "/api/runs/:id" },
    (c) => ({ title: `Run ${c.req.param("id")?.slice(0, 8) ?? ""}`, current: "/runs", live: "run" }),
    (c) =>
      Effect.all([
        parseInput(RunParams, c.req.param()),
        parseInput(RunPageQuery, c.req.query())
      ]).pipe(Effect.flatMap(([{ id }, query]) => deps.views.run(RunId(id), query.attempt))),
    (view, csrf) => <RunPage view={view} csrf={csrf} />
  )
  // The raw patch of the Run's newest held Attempt, as a file to save.
  app.get("/runs/:id/patch", async (c) => {
    const exit = await deps.run(
      Effect.tapErrorCause(Effect.flatMap(parseInput(RunParams, c.req.param()), ({ id }) => deps.views.patch(RunId(id))), logUnexpected)
    )
    if (Exit.isFailure(exit)) {
      const problem = problemOf(exit.cause, deps.redact)
      return c.json(problem.body, problem.status)
    }
    if (exit.value === "") return c.text("No diff is stored for this Run.", 404)
    return c.body(exit.value, 200, {
      "Content-Type": "text/x-diff; charset=utf-8",
      "Content-Disposition": `attachment; filename="run-${c.req.param("id").slice(0, 8)}.patch"`
    })
  })
  twin(
    { page: "/board", api: "/api/board" },
    () => ({ title: "Board", current: "/board", live: "page" }),
    () => deps.views.board,
    (view, csrf) => <BoardPage view={view} csrf={csrf} />
  )
  twin(
    { page: "/loops", api: "/api/loops" },
    () => ({ title: "Loops", current: "/loops", live: "page" }),
    () => deps.views.loops,
    (view, csrf) => <LoopsPage view={view} csrf={csrf} />
  )
  twin(
    { page: "/usage", api: "/api/usage" },
    () => ({ title: "Usage", current: "/usage", live: "page" }),
    () => deps.views.usage,
    (view) => <UsagePage view={view} />
  )
  twin(
    { page: "/audit", api: "/api/audit" },
    () => ({ title: "Audit", current: "/audit" }),
    (c) => Effect.flatMap(parseInput(AuditQuerySchema, c.req.query()), (query) => deps.audit.page(query, c.get("person"))),
    (view) => <AuditPage view={view} />
  )
  twin(
    { page: "/workers", api: "/api/workers" },
    () => ({ title: "Workers", current: "/workers", live: "page" }),
    () => deps.views.workers,
    (view) => <WorkersPage view={view} />
  )
}
