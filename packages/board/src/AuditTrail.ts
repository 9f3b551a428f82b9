import { Cause, Effect, Match, Option } from "effect"
import { parseItemKey } from "@usine/core/ids/ItemKey"
import { atLeast } from "@usine/core/people/RepositoryRole"
import { Redactor } from "@usine/core/text/Redactor"
import { AuditLog, type AuditOutcome } from "@usine/store/AuditLog"
import { RunReads } from "@usine/store/RunReads"
import type { ActionTarget } from "./BoardAccess"
import { type AuditQuery, type AuditView, auditEntryView } from "./AuditTrail/auditView"
import { BoardSettings } from "./BoardSettings"
import { RepositoryRoles } from "./RepositoryRoles"

/** One action as the Board saw it, before the target is resolved to its repository, Loop and Run. */
interface AuditedAction {
  /** The signed-in person; undefined for the Board token (`operator`). */
  readonly login: string | undefined
  readonly action: string
  readonly outcome: AuditOutcome
  readonly target: ActionTarget
  readonly detail?: string | undefined
  readonly result?: string | undefined
}

/** Where an action acted, as far as its target says. */
interface Where {
  readonly repository?: string | undefined
  readonly loop?: string | undefined
  readonly runId?: string | undefined
  readonly itemKey?: string | undefined
}

/** How many entries one page of the Audit page or `/api/audit` holds at most. */
const MAX_PAGE = 500

/**
 * The Board's audit (ADR 0107): every action a person or the Board token takes, refusals included, appended to the
 * ledger after the action with what it touched; and the Audit page's data, a keyset page under the filters, limited
 * for a signed-in person to the repositories they may read.
 */
export class AuditTrail extends Effect.Service<AuditTrail>()("usine/AuditTrail", {
  effect: Effect.gen(function* () {
    const log = yield* AuditLog
    const reads = yield* RunReads
    const settings = yield* BoardSettings
    const redactor = yield* Redactor
    const roles = yield* Effect.serviceOption(RepositoryRoles)

    const whereOf = (target: ActionTarget): Effect.Effect<Where> =>
      Match.valueTags(target, {
        Run: ({ runId }) =>
          reads.getRun(runId).pipe(
            Effect.map((run) => ({ repository: run.repository, loop: run.loop, runId: run.id, itemKey: run.itemKey })),
            Effect.orElseSucceed((): Where => ({ runId }))
          ),
        Item: ({ itemKey }) => Effect.succeed({ repository: parseItemKey(itemKey)?.repository, itemKey }),
        Repository: ({ repository }) => Effect.succeed({ repository }),
        Loop: ({ loop }) => Effect.succeed({ loop })
      })

    /** The configured spelling of a repository, so `ACME/Widgets` finds `acme/widgets`'s entries. */
    const configuredName = (repository: string) =>
      settings.current().repositories.find((r) => r.toLowerCase() === repository.toLowerCase()) ?? repository

    /** The configured repositories `login` may read, or undefined when they may read them all. */
    const readableBy = (login: string | undefined) =>
      Effect.gen(function* () {
        if (login === undefined || Option.isNone(roles)) return undefined
        const configured = settings.current().repositories
        const readable: Array<string> = []
        for (const repository of configured) {
          const role = yield* roles.value.roleOf(login, repository).pipe(Effect.orElseSucceed(() => "none" as const))
          if (atLeast(role, "read")) readable.push(repository)
        }
        return readable.length === configured.length ? undefined : readable
      })

    return {
      /**
       * Appends the action with its repository, Loop, Run and Item. An audit that cannot be written is logged, not
       * answered: the action itself is done and its Run's transitions name the person.
       */
      record: Effect.fn("AuditTrail.record")(function* (action: AuditedAction) {
        const where = yield* whereOf(action.target)
        yield* log.append({
          actor: "operator",
          login: action.login,
          action: action.action,
          outcome: action.outcome,
          repository: where.repository === undefined ? undefined : configuredName(where.repository),
          loop: where.loop,
          runId: where.runId,
          itemKey: where.itemKey,
          detail: action.detail,
          result: action.result
        })
      }, Effect.catchAllCause((cause) => Effect.logError("the audit could not record an action", Cause.pretty(cause)))),
      /** One page of the audit under `query`, for `viewer` (a signed-in person, or undefined for full rights). */
      page: Effect.fn("AuditTrail.page")(function* (query: AuditQuery, viewer: string | undefined) {
        const limit = Math.min(query.limit ?? settings.current().pageSize, MAX_PAGE)
        const page = yield* log.page({
          login: query.login === "operator" ? null : query.login,
          repository: query.repository === undefined ? undefined : configuredName(query.repository),
          readable: yield* readableBy(viewer),
          action: query.action,
          loop: query.loop,
          since: query.since,
          until: query.until,
          before: query.before,
          limit
        })
        return {
          query,
          entries: page.entries.map((entry) => auditEntryView(entry, redactor.redact)),
          ...(page.next === undefined ? {} : { next: page.next })
        } satisfies AuditView
      })
    } as const
  })
}) {}
