import { Effect } from "effect"
import type { ItemLoop } from "@usine/core/config/CompiledLoop"
import { type ActorFacts, COLLABORATOR_ASSOCIATIONS, type ContentEdit, looksLikeBot, outsiderFacts } from "@usine/core/trust/ActorFacts"
import { judgeActor } from "@usine/core/trust/judgeActor"
import { type LabelActor, judgeTrigger, type TriggerTrust } from "@usine/core/trust/judgeTrigger"
import { labelsToCheck } from "@usine/core/trust/labelsToCheck"
import { isListed, type TrustPolicy } from "@usine/core/trust/TrustPolicy"
import { Collaborators } from "@usine/github/Collaborators"
import { contextFields, memoizedVisible } from "./contextFields"
import type { GitHubError } from "@usine/github/GitHubError"
import type { ContextComment, ItemFields } from "./ItemFields"
import { type Labeller, LabelActors } from "@usine/github/LabelActors"
import type { ObservedItem } from "./ObserveItem"

/** One Item's trust, its lookups shared by every Loop of the Item's stream. */
export interface AssessedItem {
  /** `item` as the Loop's `if:` and prompt see it: sanitized, untrusted comments and reviews left out. */
  readonly context: (loop: ItemLoop) => Effect.Effect<ItemFields, GitHubError>
  /**
   * Whether the Loop may act on the Item: whoever added the labels its `if:` depends on, and nobody untrusted edited
   * the title or body since, else the author; both under `trust: strict` (ADR 0055).
   */
  readonly judge: (loop: ItemLoop) => Effect.Effect<TriggerTrust, GitHubError>
}

/** Trigger trust and content hygiene for the Items a poll observed (ADR 0032, 0033, 0055). */
export class ItemTrust extends Effect.Service<ItemTrust>()("usine/ItemTrust", {
  effect: Effect.gen(function* () {
    const collaborators = yield* Collaborators
    const labelActors = yield* LabelActors

    /**
     * The facts of an account that wrote on the Item: its author association rules out push access without asking
     * GitHub unless it is OWNER, MEMBER or COLLABORATOR. A listed login needs no lookup either.
     */
    const writerFacts = (repository: string, policy: TrustPolicy, login: string, association: string) =>
      isListed(policy, login) || !COLLABORATOR_ASSOCIATIONS.has(association)
        ? Effect.succeed(outsiderFacts(login, association))
        : collaborators.facts(repository, login)

    /** A listed or bot labeller (or editor) is judged without a lookup: listed is trusted, a bot refused. */
    const labellerFacts = (repository: string, policy: TrustPolicy, labeller: Pick<Labeller, "login" | "isBot">) =>
      isListed(policy, labeller.login) || labeller.isBot
        ? Effect.succeed<ActorFacts>({ login: labeller.login, isBot: labeller.isBot, canWrite: false, access: "no access" })
        : collaborators.facts(repository, labeller.login)

    /** Starts the repository's poll cycle: permissions are checked again, conditionally. */
    const newCycle = (repository: string) => collaborators.newCycle(repository)

    /** The Item's trust; the label events are read at most once, and only for a Loop that needs them. */
    const assess = Effect.fn("ItemTrust.assess")(function* (item: ObservedItem) {
      const { fields, repository } = item
      const actors = yield* Effect.cached(labelActors.actors(repository, item.number))
      const visible = memoizedVisible()

      const context = (loop: ItemLoop) =>
        Effect.gen(function* () {
          const policy = loop.trust
          if (policy.mode === "anyone") return contextFields(fields, () => true, visible)
          const writers = new Map<string, ContextComment>()
          for (const comment of [...fields.comments, ...fields.reviews, ...fields.reviewThreads]) {
            writers.set(comment.author.toLowerCase(), comment)
          }
          const trusted = new Set<string>()
          for (const [key, comment] of writers) {
            const facts = yield* writerFacts(repository, policy, comment.author, comment.authorAssociation)
            if (judgeActor(policy, facts)._tag === "Trusted") trusted.add(key)
          }
          return contextFields(fields, (comment) => trusted.has(comment.author.toLowerCase()), visible)
        })

      const judge = (loop: ItemLoop) =>
        Effect.gen(function* () {
          const policy = loop.trust
          if (policy.mode === "anyone") return { _tag: "Trusted" } satisfies TriggerTrust
          const author: ActorFacts = yield* writerFacts(repository, policy, fields.author, fields.authorAssociation)
          const names = labelsToCheck(loop.if.source, fields.labels)
          const labels: Array<LabelActor> = []
          const edits: Array<ContentEdit> = []
          if (names.length > 0) {
            const { labellers, renamed } = yield* actors
            for (const label of names) {
              const labeller = labellers.get(label.toLowerCase())
              const actor = labeller === undefined ? undefined : yield* labellerFacts(repository, policy, labeller)
              labels.push({ label, actor, addedAt: labeller?.at })
            }
            if (policy.mode === "collaborators") {
              const editorFacts = (login: string, isBot: boolean) =>
                login.toLowerCase() === author.login.toLowerCase() ? Effect.succeed(author) : labellerFacts(repository, policy, { login, isBot })
              if (item.lastEdit !== undefined) {
                const editor = yield* editorFacts(item.lastEdit.editor, looksLikeBot(item.lastEdit.editor))
                edits.push({ how: "edited", at: item.lastEdit.at, editor })
              }
              if (renamed !== undefined) {
                edits.push({ how: "renamed", at: renamed.at, editor: yield* editorFacts(renamed.login, renamed.isBot) })
              }
            }
          }
          return judgeTrigger(policy, author, labels, edits)
        })

      return { context, judge } satisfies AssessedItem
    })

    return { assess, newCycle }
  }),
  dependencies: [Collaborators.Default, LabelActors.Default]
}) {}
