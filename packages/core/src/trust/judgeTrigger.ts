import type { ActorFacts, ContentEdit } from "./ActorFacts"
import { judgeActor } from "./judgeActor"
import type { TrustPolicy } from "./TrustPolicy"

/** Who added one label the Loop depends on, and when: the newest `labeled` event, if the timeline has one. */
export interface LabelActor {
  readonly label: string
  readonly actor: ActorFacts | undefined
  /** When that event happened (ISO 8601); unknown when there is no event. */
  readonly addedAt?: string | undefined
}

/** Whether a Loop may act on an Item, and if not, the one reason the operator reads. */
export type TriggerTrust =
  | { readonly _tag: "Trusted" }
  | { readonly _tag: "Refused"; readonly reason: string }

const trusted: TriggerTrust = { _tag: "Trusted" }

const judgeAuthor = (policy: TrustPolicy, author: ActorFacts): TriggerTrust => {
  const ofAuthor = judgeActor(policy, author)
  return ofAuthor._tag === "Untrusted" ? { _tag: "Refused", reason: `author ${author.login} ${ofAuthor.why}` } : trusted
}

/** Every labeller must be trusted; a label with no `labeled` event refuses, since who added it cannot be told. */
const judgeLabellers = (policy: TrustPolicy, labels: ReadonlyArray<LabelActor>): TriggerTrust => {
  for (const { actor, label } of labels) {
    if (actor === undefined) return { _tag: "Refused", reason: `label ${label}: no labeled event tells who added it` }
    const ofActor = judgeActor(policy, actor)
    if (ofActor._tag === "Untrusted") {
      return { _tag: "Refused", reason: `label ${label} was added by ${actor.login}, who ${ofActor.why}` }
    }
  }
  return trusted
}

/**
 * A labeller vouches for the title and body as they were when the label went on. An untrusted edit at or after that
 * moment (GitHub's times are to the second, so the same second counts as after) is text nobody vouched for.
 */
const judgeEdits = (policy: TrustPolicy, labels: ReadonlyArray<LabelActor>, edits: ReadonlyArray<ContentEdit>): TriggerTrust => {
  for (const edit of edits) {
    if (judgeActor(policy, edit.editor)._tag === "Trusted") continue
    const editedAt = Date.parse(edit.at)
    const vouched = labels.find(({ addedAt }) => addedAt === undefined || !(Date.parse(addedAt) > editedAt))
    if (vouched !== undefined) {
      return {
        _tag: "Refused",
        reason: `${edit.how} by ${edit.editor.login} at ${edit.at}, after ${vouched.actor?.login ?? "ghost"} added ` +
          `${vouched.label}${vouched.addedAt === undefined ? "" : ` at ${vouched.addedAt}`}; a trusted user must label it again`
      }
    }
  }
  return trusted
}

/**
 * Trust by the triggering actor (ADR 0055). `labels` are the present labels the Loop's `if:` depends on
 * (`labelsToCheck`). When there are some, whoever added them triggered the Loop and vouches for it: a collaborator
 * labelling an outsider's issue starts it, an outsider labelling their own does not; and an untrusted user's edit of
 * the title or body after a label went on (`edits`, the last of each) refuses until a trusted user labels it again.
 * When there are none, the Item's author triggered it. `strict` needs the author as well (so only trusted users can
 * have edited); `anyone` needs nobody. The author's text is data either way: it reaches the prompt only through the
 * `untrusted` filter.
 */
export const judgeTrigger = (
  policy: TrustPolicy,
  author: ActorFacts,
  labels: ReadonlyArray<LabelActor>,
  edits: ReadonlyArray<ContentEdit> = []
): TriggerTrust => {
  if (policy.mode === "anyone") return trusted
  if (policy.mode === "collaborators" && labels.length > 0) {
    const ofLabellers = judgeLabellers(policy, labels)
    return ofLabellers._tag === "Refused" ? ofLabellers : judgeEdits(policy, labels, edits)
  }
  const ofAuthor = judgeAuthor(policy, author)
  return ofAuthor._tag === "Refused" ? ofAuthor : judgeLabellers(policy, labels)
}
