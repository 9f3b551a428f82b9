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
  it("refuses an untrusted author, an untrusted labeller, or a label nobody is recorded adding", () => {
    assert.deepStrictEqual(judgeTrigger(defaultTrustPolicy, writer, [{ label: "ready", actor: writer }]), { _tag: "Trusted" })
    const author = judgeTrigger(defaultTrustPolicy, outsiderFacts("eve", "CONTRIBUTOR"), [])
    assert.deepStrictEqual(author, {
      _tag: "Refused",
      reason: "author eve has no collaborator access (CONTRIBUTOR), not write access, and is not in trusted_authors"
    })
    const label = judgeTrigger(defaultTrustPolicy, writer, [{ label: "ready", actor: triager }])
    assert.strictEqual(
      label._tag === "Refused" ? label.reason : "",
      "label ready was added by mallory, who has triage access, not write access, and is not in trusted_authors"
    )
    const unknown = judgeTrigger(defaultTrustPolicy, writer, [{ label: "ready", actor: undefined }])
    assert.strictEqual(unknown._tag, "Refused")
    assert.strictEqual(judgeTrigger({ mode: "anyone", trustedAuthors: [] }, bot, [{ label: "ready", actor: undefined }])._tag, "Trusted")
  })
})
