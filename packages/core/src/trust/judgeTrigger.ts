import type { ActorFacts } from "./ActorFacts"
import { judgeActor } from "./judgeActor"
import type { TrustPolicy } from "./TrustPolicy"

/** Who added one label the Loop depends on: the actor of the newest `labeled` event, if the timeline has one. */
export interface LabelActor {
  readonly label: string
  readonly actor: ActorFacts | undefined
}

/** Whether a Loop may act on an Item, and if not, the one reason the operator reads. */
export type TriggerTrust =
  | { readonly _tag: "Trusted" }
  | { readonly _tag: "Refused"; readonly reason: string }

/**
 * The trigger is trusted when the Item's author is, and so is whoever last added each label the Loop depends on
 * (`labelsToCheck`). The first untrusted one refuses it; a label with no `labeled` event refuses it too, since its
 * author cannot be told.
 */
export const judgeTrigger = (
  policy: TrustPolicy,
  author: ActorFacts,
  labels: ReadonlyArray<LabelActor>
): TriggerTrust => {
  if (policy.mode === "anyone") return { _tag: "Trusted" }
  const ofAuthor = judgeActor(policy, author)
  if (ofAuthor._tag === "Untrusted") return { _tag: "Refused", reason: `author ${author.login} ${ofAuthor.why}` }
  for (const { actor, label } of labels) {
    if (actor === undefined) {
      return { _tag: "Refused", reason: `label ${label}: no labeled event tells who added it` }
    }
    const ofActor = judgeActor(policy, actor)
    if (ofActor._tag === "Untrusted") {
      return { _tag: "Refused", reason: `label ${label} was added by ${actor.login}, who ${ofActor.why}` }
    }
  }
  return { _tag: "Trusted" }
}
