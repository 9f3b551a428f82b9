import { Cause, Effect, Either, ParseResult, Schema } from "effect"
import { Hono } from "hono"
import { errorBody } from "../world/ApiError"
import * as Inputs from "./ControlInputs"
import type { SimControl } from "./SimControl"

type Method = keyof SimControl

/** The input schema of each control method (the HTTP edge decodes bodies with it). */
const inputs: { readonly [M in Method]: Schema.Schema<any, any> } = {
  createUser: Inputs.CreateUser,
  setPermission: Inputs.SetPermission,
  setTeamMembers: Inputs.SetTeamMembers,
  createFineGrainedToken: Inputs.CreateFineGrainedToken,
  createRepository: Inputs.CreateRepository,
  createIssue: Inputs.CreateIssue,
  updateIssue: Inputs.UpdateIssue,
  addComment: Inputs.AddComment,
  createLabel: Inputs.CreateLabel,
  addLabels: Inputs.AddLabels,
  removeLabel: Inputs.RemoveLabel,
  createPullRequest: Inputs.CreatePullRequest,
  mergePullRequest: Inputs.PullAction,
  closePullRequest: Inputs.PullAction,
  setMergeState: Inputs.SetMergeState,
  addReview: Inputs.AddReview,
  addCheckRun: Inputs.AddCheckRun,
  addCommitStatus: Inputs.AddCommitStatus,
  addReviewThread: Inputs.AddReviewThread,
  createApp: Inputs.CreateApp,
  createOAuthApp: Inputs.CreateOAuthApp,
  setInstallationTokenLifetime: Inputs.SetInstallationTokenLifetime,
  installationTokenCounts: Inputs.Empty,
  setFault: Inputs.Fault,
  clearFaults: Inputs.Empty,
  requestLog: Inputs.Empty,
  clearRequestLog: Inputs.Empty,
  setTime: Inputs.SetTime,
  advanceTime: Inputs.AdvanceTime,
  setRateLimit: Inputs.SetRateLimit
}

const isMethod = (name: string): name is Method => Object.hasOwn(inputs, name)

/** `POST /_sim/{method}` with the method's input as JSON; answers its result as JSON (`GET` works for `requestLog`). */
export const controlRoutes = (control: SimControl): Hono => {
  const app = new Hono()
  const call = async (name: string, body: unknown) => {
    if (!isMethod(name)) return Response.json({ message: `no control method ${name}` }, { status: 404 })
    const decoded = Schema.decodeUnknownEither(inputs[name])(body)
    if (Either.isLeft(decoded)) {
      return Response.json({ message: ParseResult.TreeFormatter.formatErrorSync(decoded.left) }, { status: 400 })
    }
    const method = control[name] as (input: unknown) => Effect.Effect<unknown, { readonly _tag: string; readonly message: string }>
    const exit = await Effect.runPromiseExit(method(decoded.right))
    if (exit._tag === "Success") return Response.json(exit.value ?? null)
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some") {
      const error = failure.value
      const status = "status" in error && typeof error.status === "number" ? error.status : 500
      return Response.json("status" in error ? errorBody(error as never) : { message: error.message }, { status })
    }
    return Response.json({ message: Cause.pretty(exit.cause) }, { status: 500 })
  }
  app.post("/_sim/:method", async (c) => {
    const text = await c.req.text()
    let body: unknown
    try {
      body = text.trim() === "" ? {} : JSON.parse(text)
    } catch {
      return c.json({ message: "Problems parsing JSON" }, 400)
    }
    return call(c.req.param("method"), body)
  })
  app.get("/_sim/requestLog", () => call("requestLog", {}))
  return app
}
