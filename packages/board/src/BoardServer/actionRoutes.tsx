import { Effect, Exit, Schema } from "effect"
import type { Context, Hono } from "hono"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { ItemKey } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import { ActingPerson } from "@usine/core/people/ActingPerson"
import type { ActionTarget, BoardAccess } from "../BoardAccess"
import type { BoardAction } from "../BoardAccess/roleNeeded"
import type { BoardActions } from "../BoardActions"
import { ProblemPage } from "../pages/ProblemPage"
import type { BoardEnv } from "./BoardEnv"
import {
  EditAndRetryForm,
  ClearParkForm,
  InterveneForm,
  RaiseCapForm,
  LoopParams,
  MoveForm,
  PlainForm,
  RequestChangesForm,
  ResetForm,
  RunParams,
  VersionedForm
} from "./inputs"
import { parseInput } from "./parseInput"
import { renderPage } from "./renderPage"
import { logUnexpected, problemOf, type RunExit, wantsJson } from "./respond"

interface ActionDeps {
  readonly actions: BoardActions
  readonly access: BoardAccess
  readonly run: RunExit
  readonly redact: (text: string) => string
}

/** The posted fields: a JSON body for scripts, a form for browsers without JavaScript. */
export const readBody = async (c: Context<BoardEnv>): Promise<unknown> =>
  (c.req.header("content-type") ?? "").includes("application/json")
    ? c.req.json().catch(() => ({}))
    : c.req.parseBody().catch(() => ({}))

/** A failure carrying GitHub's 401 or 403 answer to a call the action made. */
const refusedByGitHub = (error: unknown): boolean => {
  const status = typeof error === "object" && error !== null && "githubStatus" in error ? error.githubStatus : undefined
  return status === 401 || status === 403
}

/** Which action a route is, for its role, and what it acts on, for the repositories the role is read on. */
interface Guard<P, B> {
  readonly name: BoardAction
  readonly target: (params: P, body: B) => ActionTarget
}

/**
 * Each action: validate at the edge, check a signed-in person's role for it (ADR 0098), call one BoardActions method
 * on their behalf, answer JSON (200, or the error's status) or, for a plain form post, 303 back to the page (or a
 * page naming the refusal, with its status).
 */
export const actionRoutes = (app: Hono<BoardEnv>, deps: ActionDeps) => {
  const action = <P, PI, B extends { readonly back?: string | undefined }, BI, A, E>(
    path: string,
    params: Schema.Schema<P, PI>,
    body: Schema.Schema<B, BI>,
    act: (params: P, body: B) => Effect.Effect<A, E>,
    home: (params: P) => string,
    guard: Guard<P, B>
  ) =>
    app.post(path, async (c) => {
      const raw = await readBody(c)
      const person = c.get("person")
      let back: string | undefined
      const exit = await deps.run(
        Effect.all([parseInput(params, c.req.param()), parseInput(body, raw)]).pipe(
          Effect.tap(([p, b]) => Effect.sync(() => (back = b.back ?? home(p)))),
          Effect.tap(([p, b]) => person === undefined ? Effect.void : deps.access.check(person, guard.name, guard.target(p, b))),
          Effect.flatMap(([p, b]) =>
            act(p, b).pipe(
              // GitHub refused a call made for the person: their role is read again, and a refusal names it.
              Effect.tapError((error) =>
                person !== undefined && refusedByGitHub(error) ? deps.access.recheck(person, guard.name, guard.target(p, b)) : Effect.void
              )
            )
          ),
          Effect.provideService(ActingPerson, { login: person }),
          Effect.tapErrorCause(logUnexpected)
        )
      )
      if (Exit.isSuccess(exit)) return wantsJson(c) ? c.json(exit.value as object) : c.redirect(back ?? "/", 303)
      const problem = problemOf(exit.cause, deps.redact)
      if (wantsJson(c)) return c.json(problem.body, problem.status)
      return renderPage(c, { title: "Refused", current: "" }, <ProblemPage message={problem.body.message} back={back} />, problem.status)
    })

  const NoParams = Schema.Struct({})
  const runHome = ({ id }: { readonly id: string }) => `/runs/${id}`
  const { actions } = deps
  const onRun = (name: BoardAction): Guard<{ readonly id: string }, unknown> => ({ name, target: ({ id }) => ({ _tag: "Run", runId: RunId(id) }) })
  const onLoop: Guard<{ readonly loop: string }, unknown> = { name: "pause", target: ({ loop }) => ({ _tag: "Loop", loop }) }

  action("/runs/:id/approve", RunParams, VersionedForm, ({ id }, { version }) => actions.approve(RunId(id), version), runHome, onRun("approve"))
  action("/runs/:id/cancel", RunParams, VersionedForm, ({ id }, { version }) => actions.cancel(RunId(id), version), runHome, onRun("cancel"))
  action("/runs/:id/approve-pull-request", RunParams, VersionedForm, ({ id }, { version }) => actions.approvePullRequest(RunId(id), version), runHome, onRun("approvePullRequest"))
  action(
    "/runs/:id/request-changes",
    RunParams,
    RequestChangesForm,
    ({ id }, { text, version }) => actions.requestChanges(RunId(id), text, version),
    runHome,
    onRun("requestChanges")
  )
  action("/runs/:id/reject", RunParams, VersionedForm, ({ id }, { version }) => actions.reject(RunId(id), version), runHome, onRun("reject"))
  action("/runs/:id/retry", RunParams, VersionedForm, ({ id }, { version }) => actions.retry(RunId(id), version), runHome, onRun("retry"))
  action(
    "/runs/:id/edit-and-retry",
    RunParams,
    EditAndRetryForm,
    ({ id }, { agent, model, task, version }) =>
      actions.editAndRetry(
        RunId(id),
        {
          ...(task === undefined ? {} : { task }),
          ...(agent === undefined ? {} : { agent }),
          ...(model === undefined ? {} : { model })
        },
        version
      ),
    runHome,
    onRun("editAndRetry")
  )
  action("/runs/:id/resolve-failure", RunParams, PlainForm, ({ id }) => actions.resolveFailure(RunId(id)), runHome, onRun("resolveFailure"))
  action(
    "/runs/:id/intervene",
    RunParams,
    InterveneForm,
    ({ id }, { attemptId, message }) => actions.intervene(RunId(id), AttemptId(attemptId), message),
    runHome,
    onRun("intervene")
  )
  action("/loops/:loop/pause", LoopParams, PlainForm, ({ loop }) => actions.setPaused(loop, true), () => "/loops", onLoop)
  action("/loops/:loop/unpause", LoopParams, PlainForm, ({ loop }) => actions.setPaused(loop, false), () => "/loops", onLoop)
  action(
    "/budgets/reset",
    NoParams,
    ResetForm,
    (_, { askId, itemKey }) => actions.resetCycleBudget(ItemKey(itemKey), askId),
    () => "/",
    { name: "resetCycleBudget", target: (_, { itemKey }) => ({ _tag: "Item", itemKey: ItemKey(itemKey) }) }
  )
  action(
    "/budgets/raise",
    NoParams,
    RaiseCapForm,
    (_, { costUsd, loop, tokens }) => actions.raiseCap(loop, { tokens, costUsd }),
    () => "/",
    { name: "raiseCap", target: (_, { loop }) => ({ _tag: "Loop", loop }) }
  )
  action(
    "/brakes/clear-no-progress",
    NoParams,
    ClearParkForm,
    (_, { itemKey, loop }) => actions.clearNoProgress(loop, ItemKey(itemKey)),
    () => "/",
    { name: "clearNoProgress", target: (_, { itemKey }) => ({ _tag: "Item", itemKey: ItemKey(itemKey) }) }
  )
  action(
    "/board/move",
    NoParams,
    MoveForm,
    (_, { column, number, repository }) => actions.move(repository, number, column),
    () => "/board",
    { name: "move", target: (_, { repository }) => ({ _tag: "Repository", repository }) }
  )
}
