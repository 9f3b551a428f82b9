import * as path from "node:path/posix"
import type { SessionSandbox } from "../DurableSession/startSession"
import type { VerifySandbox } from "../Verify"
import { agentEndpoints } from "../Sandbox/agentNetwork"
import { type Endpoint, parseEndpoint } from "../Sandbox/endpoints"
import { startRepoOf } from "../Workspace/startRepo"
import type { AttemptContext } from "./AttemptContext"

/**
 * The objects of the Attempt's `start.git`, which its clone borrows (`objects/info/alternates`): read-only in every
 * sandbox. Only the start's history is there (ADR 0083); the mirror, with every branch and the held and salvaged
 * work, is never bound.
 */
const startObjects = (ctx: AttemptContext): ReadonlyArray<string> => [path.join(startRepoOf(ctx.attemptDir), "objects")]

const loopHosts = (ctx: AttemptContext): ReadonlyArray<Endpoint> =>
  (ctx.request.policy.network ?? []).map(parseEndpoint).filter((e): e is Endpoint => e !== undefined)

/**
 * The agent's sandbox on a Worker that has one (ADR 0054): its worktree writable, its start's objects and its
 * Agent's login files read-only, `git` and `node` visible wherever they are installed, and the network of its model
 * endpoint plus the hosts its Agent and Loop name. `undefined` on a Worker with `sandbox: none`.
 */
export const agentSandbox = (
  ctx: AttemptContext,
  env: Readonly<Record<string, string>>,
  providerBaseUrl: string | undefined
): SessionSandbox | undefined =>
  ctx.worker.sandbox() === "none"
    ? undefined
    : {
        writable: [ctx.worktree],
        readOnly: startObjects(ctx),
        homeFiles: ctx.agent.sandboxReadOnly ?? [],
        confinement: ctx.worker.confinement(),
        tools: ["git", "node"],
        network: [
          ...agentEndpoints({ harness: ctx.harness.name, env, providerBaseUrl, named: ctx.agent.network ?? [] }),
          ...loopHosts(ctx)
        ]
      }

/** The `verify` commands' sandbox: like the agent's, with the Loop's hosts only and a folder of the round's own. */
export const verifySandbox = (ctx: AttemptContext, round: number): VerifySandbox | undefined =>
  ctx.worker.sandbox() === "none"
    ? undefined
    : {
        dir: path.join(ctx.attemptDir, `verify-${round}`),
        readOnly: startObjects(ctx),
        tools: ["git", "node"],
        network: loopHosts(ctx),
        confinement: ctx.worker.confinement()
      }
