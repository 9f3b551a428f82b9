import type { ActorFacts } from "./ActorFacts"
import { isListed, type TrustPolicy } from "./TrustPolicy"

/** Whether one account may trigger a Loop or speak in its prompt; `why` completes "<login> ..." when not. */
type ActorTrust =
  | { readonly _tag: "Trusted" }
  | { readonly _tag: "Untrusted"; readonly why: string }

const trusted: ActorTrust = { _tag: "Trusted" }

/**
 * `trust: anyone` trusts everyone; a login in `trusted_authors` is trusted whatever its access; otherwise a bot is
 * refused, and a person needs push access.
 */
export const judgeActor = (policy: TrustPolicy, facts: ActorFacts): ActorTrust => {
  if (policy.mode === "anyone" || isListed(policy, facts.login)) return trusted
  if (facts.isBot) return { _tag: "Untrusted", why: "is a bot not listed in trusted_authors" }
  if (facts.canWrite) return trusted
  return { _tag: "Untrusted", why: `has ${facts.access}, not write access, and is not in trusted_authors` }
}
