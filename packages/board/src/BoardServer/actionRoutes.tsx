import { Cause, Effect, Exit, Option, Schema } from "effect"
import type { Context, Hono } from "hono"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { ItemKey } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import { ActingPerson } from "@usine/core/people/ActingPerson"
import type { AuditTrail } from "../AuditTrail"
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
  readonly audit: AuditTrail
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

/** What the audit keeps of an action besides who, what and where (ADR 0107). */
interface Audited<P, B, A> {
  /** The action's name in the audit when it differs from its role's (`unpause`). */
  readonly as?: string
  /** What the person gave: a message, an edit, a figure. */
  readonly detail?: (params: P, body: B) => string | undefined
  /** Whether it changed nothing (a repeat), and what became of it. */
  readonly result?: (value: A) => { readonly unchanged?: boolean; readonly result?: string | undefined }
}

/** The refusals of a person the audit keeps: their role, and a Loop's four-eyes rule. */
const refusalOf = (cause: Cause.Cause<unknown>): string | undefined => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) return undefined
  const error = failure.value as { readonly _tag?: unknown; readonly message?: unknown }
  return error._tag === "RoleTooLow" || error._tag === "FourEyesRefused" ? String(error.message) : undefined
}

/**
 * Each action: validate at the edge, check a signed-in person's role for it (ADR 0098), call one BoardActions method
 * on their behalf, answer JSON (200, or the error's status) or, for a plain form post, 303 back to the page (or a
 * page naming the refusal, with its status). What was done, or refused by role or four eyes, goes to the audit.
 */
export const actionRoutes = (app: Hono<BoardEnv>, deps: ActionDeps) => {
  const action = <P, PI, B extends { readonly back?: string | undefined }, BI, A, E>(
    path: string,
    params: Schema.Schema<P, PI>,
    body: Schema.Schema<B, BI>,
    act: (params: P, body: B) => Effect.Effect<A, E>,
    home: (params: P) => string,
    guard: Guard<P, B>,
    audited: Audited<P, B, A> = {}
  ) =>
    app.post(path, async (c) => {
      const raw = await readBody(c)
      const person = c.get("person")
      let back: string | undefined
      let parsed: readonly [P, B] | undefined
      const exit = await deps.run(
        Effect.all([parseInput(params, c.req.param()), parseInput(body, raw)]).pipe(
          Effect.tap(([p, b]) => Effect.sync(() => {
            back = b.back ?? home(p)
            parsed = [p, b]
          })),
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
      if (parsed !== undefined) {
        const [p, b] = parsed
        const settled = Exit.match(exit, {
          onSuccess: (value) => {
            const { result, unchanged } = audited.result?.(value) ?? {}
            return { outcome: unchanged === true ? "unchanged" as const : "done" as const, result }
          },
          onFailure: (cause) => Option.map(Option.fromNullable(refusalOf(cause)), (result) => ({ outcome: "refused" as const, result }))
            .pipe(Option.getOrUndefined)
        })
        if (settled !== undefined) {
          await deps.run(deps.audit.record({
            login: person,
            action: audited.as ?? guard.name,
            outcome: settled.outcome,
            target: guard.target(p, b),
            detail: audited.detail?.(p, b),
            result: settled.result
          }))
        }
      }
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

  action("/runs/:id/approve", RunParams, VersionedForm, ({ id }, { version }) => actions.approve(RunId(id), version), runHome, onRun("approve"), {
    result: ({ approved }) => ({ unchanged: !approved })
  })
  action("/runs/:id/cancel", RunParams, VersionedForm, ({ id }, { version }) => actions.cancel(RunId(id), version), runHome, onRun("cancel"), {
    result: (done) => ({ unchanged: !done.canceled, result: "pullRequest" in done ? `its pull request stays open: ${done.pullRequest}` : undefined })
  })
  action("/runs/:id/approve-pull-request", RunParams, VersionedForm, ({ id }, { version }) => actions.approvePullRequest(RunId(id), version), runHome, onRun("approvePullRequest"))
  action(
    "/runs/:id/request-changes",
    RunParams,
    RequestChangesForm,
    ({ id }, { text, version }) => actions.requestChanges(RunId(id), text, version),
    runHome,
    onRun("requestChanges"),
    { detail: (_, { text }) => text }
  )
  action("/runs/:id/reject", RunParams, VersionedForm, ({ id }, { version }) => actions.reject(RunId(id), version), runHome, onRun("reject"), {
    result: (done) => ({ unchanged: !done.rejected, result: "salvageBranch" in done ? `held work on ${done.salvageBranch}` : undefined })
  })
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
    onRun("editAndRetry"),
    {
      detail: (_, { agent, model, task }) =>
        [task === undefined ? "" : `task: ${task}`, agent === undefined ? "" : `agent: ${agent}`, model === undefined ? "" : `model: ${model}`]
          .filter((part) => part !== "").join("\n")
    }
  )
  action("/runs/:id/resolve-failure", RunParams, PlainForm, ({ id }) => actions.resolveFailure(RunId(id)), runHome, onRun("resolveFailure"))
  action(
    "/runs/:id/intervene",
    RunParams,
    InterveneForm,
    ({ id }, { attemptId, message }) => actions.intervene(RunId(id), AttemptId(attemptId), message),
    runHome,
    onRun("intervene"),
    { detail: (_, { message }) => message, result: ({ detail, status }) => ({ result: `${status}: ${detail}` }) }
  )
  action("/loops/:loop/pause", LoopParams, PlainForm, ({ loop }) => actions.setPaused(loop, true), () => "/loops", onLoop, { as: "pause" })
  action("/loops/:loop/unpause", LoopParams, PlainForm, ({ loop }) => actions.setPaused(loop, false), () => "/loops", onLoop, { as: "unpause" })
  action(
    "/budgets/reset",
    NoParams,
    ResetForm,
    (_, { askId, itemKey }) => actions.resetCycleBudget(ItemKey(itemKey), askId),
    () => "/",
    { name: "resetCycleBudget", target: (_, { itemKey }) => ({ _tag: "Item", itemKey: ItemKey(itemKey) }) },
    { result: ({ generation, reset }) => ({ unchanged: !reset, result: `generation ${generation}` }) }
  )
  action(
    "/budgets/raise",
    NoParams,
    RaiseCapForm,
    (_, { costUsd, loop, tokens }) => actions.raiseCap(loop, { tokens, costUsd }),
    () => "/",
    { name: "raiseCap", target: (_, { loop }) => ({ _tag: "Loop", loop }) },
    {
      detail: (_, { costUsd, tokens }) =>
        [tokens === undefined ? "" : `${tokens} tokens`, costUsd === undefined ? "" : `$${costUsd}`].filter((part) => part !== "").join(", ")
    }
  )
  action(
    "/brakes/clear-no-progress",
    NoParams,
    ClearParkForm,
    (_, { itemKey, loop }) => actions.clearNoProgress(loop, ItemKey(itemKey)),
    () => "/",
    { name: "clearNoProgress", target: (_, { itemKey }) => ({ _tag: "Item", itemKey: ItemKey(itemKey) }) },
    { detail: (_, { loop }) => `loop ${loop}`, result: ({ cleared }) => ({ unchanged: !cleared }) }
  )
  action(
    "/board/move",
    NoParams,
    MoveForm,
    (_, { column, number, repository }) => actions.move(repository, number, column),
    () => "/board",
    { name: "move", target: (_, { repository }) => ({ _tag: "Repository", repository }) },
    { detail: (_, { column, number }) => `#${number} to ${column}`, result: ({ moved }) => ({ unchanged: !moved }) }
  )
}
