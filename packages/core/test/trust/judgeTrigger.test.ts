import { assert, describe, it } from "@effect/vitest"
import { type ActorFacts, outsiderFacts } from "@usine/core/trust/ActorFacts"
import { judgeActor } from "@usine/core/trust/judgeActor"
import { judgeTrigger } from "@usine/core/trust/judgeTrigger"
import { labelsToCheck } from "@usine/core/trust/labelsToCheck"
import { defaultTrustPolicy, type TrustPolicy } from "@usine/core/trust/TrustPolicy"

const writer: ActorFacts = { login: "ada", isBot: false, canWrite: true, access: "write access" }
const triager: ActorFacts = { login: "mallory", isBot: false, canWrite: false, access: "triage access" }
const bot: ActorFacts = { login: "renovate[bot]", isBot: true, canWrite: true, access: "write access" }
const listing = (...trustedAuthors: Array<string>): TrustPolicy => ({ mode: "collaborators", trustedAuthors })

describe("judgeActor", () => {
  it("trusts write access, refuses less and refuses bots unless listed", () => {
    assert.deepStrictEqual(judgeActor(defaultTrustPolicy, writer), { _tag: "Trusted" })
    const refused = judgeActor(defaultTrustPolicy, triager)
    assert.strictEqual(refused._tag, "Untrusted")
    assert.include(refused._tag === "Untrusted" ? refused.why : "", "has triage access")
    assert.strictEqual(judgeActor(defaultTrustPolicy, bot)._tag, "Untrusted", "a bot with write access is still refused")
    assert.strictEqual(judgeActor(listing("renovate"), bot)._tag, "Trusted", "GraphQL's login matches REST's [bot] login")
    assert.strictEqual(judgeActor(listing("Mallory"), triager)._tag, "Trusted", "listing widens, case-insensitively")
    assert.strictEqual(judgeActor({ mode: "anyone", trustedAuthors: [] }, outsiderFacts("eve", "NONE"))._tag, "Trusted")
  })
})

describe("labelsToCheck", () => {
  const present = ["ready-for-agent", "bug", "Prio:high"]
  it("needs no label when `if:` never reads labels", () => {
    assert.deepStrictEqual(labelsToCheck('item.state == "open"', present), [])
  })
  it("needs the present labels that `if:` names with `in item.labels`", () => {
    assert.deepStrictEqual(labelsToCheck(`"ready-for-agent" in item.labels && !('wip' in item.labels)`, present), ["ready-for-agent"])
    assert.deepStrictEqual(labelsToCheck('"READY-FOR-AGENT" in item.labels', present), ["ready-for-agent"])
  })
  it("needs every present label when `if:` reads labels any other way", () => {
    assert.deepStrictEqual(labelsToCheck('"bug" in item.labels && item.labels.exists(l, l.startsWith("prio:"))', present), present)
    assert.deepStrictEqual(labelsToCheck("size(item.labels) > 0", present), present)
  })
})

describe("judgeTrigger", () => {
  const eve = outsiderFacts("eve", "NONE")
  const strict: TrustPolicy = { mode: "strict", trustedAuthors: [] }

  it("collaborators: a writer's label on an outsider's issue is trusted; the author is not asked", () => {
    assert.deepStrictEqual(judgeTrigger(defaultTrustPolicy, eve, [{ label: "ready", actor: writer }]), { _tag: "Trusted" })
  })

  it("collaborators: an outsider labelling their own issue, or a triager labelling a writer's, is refused by the labeller", () => {
    assert.deepStrictEqual(judgeTrigger(defaultTrustPolicy, eve, [{ label: "ready", actor: eve }]), {
      _tag: "Refused",
      reason: "label ready was added by eve, who has no collaborator access (NONE), not write access, and is not in trusted_authors"
    })
    const label = judgeTrigger(defaultTrustPolicy, writer, [{ label: "ready", actor: triager }])
    assert.strictEqual(
      label._tag === "Refused" ? label.reason : "",
      "label ready was added by mallory, who has triage access, not write access, and is not in trusted_authors"
    )
    const second = judgeTrigger(defaultTrustPolicy, eve, [{ label: "ready", actor: writer }, { label: "bug", actor: triager }])
    assert.include(second._tag === "Refused" ? second.reason : "", "label bug was added by mallory", "every label it depends on")
  })

  it("collaborators: a label nobody is recorded adding refuses, since nobody vouches for it", () => {
    assert.deepStrictEqual(judgeTrigger(defaultTrustPolicy, writer, [{ label: "ready", actor: undefined }]), {
      _tag: "Refused",
      reason: "label ready: no labeled event tells who added it"
    })
  })

  it("collaborators: without a label to depend on, the author triggered it and is judged", () => {
    assert.deepStrictEqual(judgeTrigger(defaultTrustPolicy, writer, []), { _tag: "Trusted" })
    assert.deepStrictEqual(judgeTrigger(defaultTrustPolicy, outsiderFacts("eve", "CONTRIBUTOR"), []), {
      _tag: "Refused",
      reason: "author eve has no collaborator access (CONTRIBUTOR), not write access, and is not in trusted_authors"
    })
    assert.strictEqual(judgeTrigger(listing("eve"), eve, [])._tag, "Trusted", "trusted_authors vouch for an author")
  })

  it("strict: the author and every labeller", () => {
    assert.deepStrictEqual(judgeTrigger(strict, writer, [{ label: "ready", actor: writer }]), { _tag: "Trusted" })
    const outsider = judgeTrigger(strict, eve, [{ label: "ready", actor: writer }])
    assert.strictEqual(
      outsider._tag === "Refused" ? outsider.reason : "",
      "author eve has no collaborator access (NONE), not write access, and is not in trusted_authors"
    )
    const label = judgeTrigger(strict, writer, [{ label: "ready", actor: triager }])
    assert.include(label._tag === "Refused" ? label.reason : "", "label ready was added by mallory")
    assert.strictEqual(judgeTrigger(strict, writer, [{ label: "ready", actor: undefined }])._tag, "Refused")
  })

  it("anyone: nobody is asked", () => {
    const anyone: TrustPolicy = { mode: "anyone", trustedAuthors: [] }
    assert.strictEqual(judgeTrigger(anyone, bot, [{ label: "ready", actor: undefined }])._tag, "Trusted")
    assert.strictEqual(judgeTrigger(anyone, eve, [{ label: "ready", actor: eve }])._tag, "Trusted")
  })
})
