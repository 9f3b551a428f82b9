import { Effect, Match, Option } from "effect"
import { type ItemKey, parseItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import { atLeast, type RepositoryRole } from "@usine/core/people/RepositoryRole"
import { RunReads } from "@usine/store/RunReads"
import { type BoardAction, ROLE_NEEDED } from "./BoardAccess/roleNeeded"
import { RoleTooLow } from "./BoardAccess/RoleTooLow"
import { BoardSettings } from "./BoardSettings"
import { FourEyes, type Gate } from "./FourEyes"
import { RepositoryRoles } from "./RepositoryRoles"

/** The approvals a Loop's four-eyes rule may bar, and the gate each opens. */
const GATE_OF: Partial<Record<BoardAction, Gate>> = { approve: "start", approvePullRequest: "pull_request" }

/** What an action acts on, which names the repositories whose role counts. */
export type ActionTarget =
  | { readonly _tag: "Run"; readonly runId: RunId }
  | { readonly _tag: "Item"; readonly itemKey: ItemKey }
  | { readonly _tag: "Repository"; readonly repository: string }
  /** A Loop's repositories; without a Loop (a daemon-wide cap), every configured repository. */
  | { readonly _tag: "Loop"; readonly loop: string | undefined }

/**
 * What a signed-in person may do, from their role on each repository an action touches (ADR 0098). The Board token
 * and a Board without sign-in act with full rights and never come here.
 */
export class BoardAccess extends Effect.Service<BoardAccess>()("usine/BoardAccess", {
  effect: Effect.gen(function* () {
    const reads = yield* RunReads
    const settings = yield* BoardSettings
    const roles = yield* Effect.serviceOption(RepositoryRoles)
    const fourEyes = yield* FourEyes

    const roleOf = (login: string, repository: string): ReturnType<RepositoryRoles["Type"]["roleOf"]> =>
      Option.match(roles, { onNone: () => Effect.succeed<RepositoryRole>("none"), onSome: (r) => r.roleOf(login, repository) })
    const freshRoleOf = (login: string, repository: string): ReturnType<RepositoryRoles["Type"]["refresh"]> =>
      Option.match(roles, { onNone: () => Effect.succeed<RepositoryRole>("none"), onSome: (r) => r.refresh(login, repository) })

    const configured = () => settings.current().repositories

    const repositoryOf = (itemKey: ItemKey): ReadonlyArray<string> => {
      const repository = parseItemKey(itemKey)?.repository
      return repository === undefined ? [] : [repository]
    }

    const repositoriesOf = (target: ActionTarget) =>
      Match.valueTags(target, {
        Repository: ({ repository }) => Effect.succeed<ReadonlyArray<string>>([repository]),
        Item: ({ itemKey }) => Effect.succeed(repositoryOf(itemKey)),
        Run: ({ runId }) => Effect.map(reads.getRun(runId), (run) => repositoryOf(run.itemKey)),
        Loop: ({ loop }) =>
          Effect.sync(() => settings.current().loops.find((l) => l.name === loop)?.repositories ?? configured())
      })

    // A target that names no repository (a Run of an unknown Item) asks for the role on all of them.
    const touched = (target: ActionTarget) =>
      Effect.map(repositoriesOf(target), (repositories) => repositories.length === 0 ? configured() : repositories)

    return {
      /**
       * Fails with RoleTooLow unless `login` holds the action's role on every repository it touches, and with
       * FourEyesRefused when the Run's Loop bars them from the approval. A cached role that refuses is read from
       * GitHub once more before the refusal (ADR 0103): a person promoted a minute ago acts now.
       */
      check: Effect.fn("BoardAccess.check")(function* (login: string, action: BoardAction, target: ActionTarget) {
        const needs = ROLE_NEEDED[action]
        for (const repository of yield* touched(target)) {
          if (atLeast(yield* roleOf(login, repository), needs)) continue
          const held = yield* freshRoleOf(login, repository)
          if (!atLeast(held, needs)) return yield* new RoleTooLow({ login, repository, action, needs, held })
        }
        const gate = GATE_OF[action]
        if (gate !== undefined && target._tag === "Run") yield* fourEyes.check(login, gate, target.runId)
      }),
      /**
       * The same check with every role read from GitHub again: after GitHub answered 401/403 to a call made for the
       * person, a refusal names the role they now hold rather than GitHub's error.
       */
      recheck: Effect.fn("BoardAccess.recheck")(function* (login: string, action: BoardAction, target: ActionTarget) {
        const needs = ROLE_NEEDED[action]
        for (const repository of yield* touched(target)) {
          const held = yield* freshRoleOf(login, repository)
          if (!atLeast(held, needs)) return yield* new RoleTooLow({ login, repository, action, needs, held })
        }
      }),
      /** Whether `login` may see the Board at all: read access to at least one configured repository. */
      mayView: Effect.fn("BoardAccess.mayView")(function* (login: string) {
        for (const repository of configured()) {
          if (atLeast(yield* roleOf(login, repository), "read")) return true
        }
        return false
      })
    } as const
  }),
  dependencies: [FourEyes.Default]
}) {}
