import { assert, describe, it } from "@effect/vitest"
import { type ActorFacts, type ContentEdit, outsiderFacts } from "@usine/core/trust/ActorFacts"
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

describe("judgeTrigger: the title or body edited after the label", () => {
  const eve = outsiderFacts("eve", "NONE")
  const labelled = [{ label: "ready-for-agent", actor: writer, addedAt: "2026-12-01T20:40:00Z" }]
  const edit = (editor: ActorFacts, at: string, how: ContentEdit["how"] = "edited"): ContentEdit => ({ how, at, editor })

  it("collaborators: an untrusted edit after a trusted label refuses, naming who edited, when, and who labelled", () => {
    assert.deepStrictEqual(judgeTrigger(defaultTrustPolicy, eve, labelled, [edit(eve, "2026-12-01T20:41:30Z")]), {
      _tag: "Refused",
      reason: "edited by eve at 2026-12-01T20:41:30Z, after ada added ready-for-agent at 2026-12-01T20:40:00Z; a trusted user must label it again"
    })
    const renamed = judgeTrigger(defaultTrustPolicy, eve, labelled, [edit(eve, "2026-12-01T20:41:30Z", "renamed")])
    assert.include(renamed._tag === "Refused" ? renamed.reason : "", "renamed by eve at 2026-12-01T20:41:30Z")
    assert.strictEqual(
      judgeTrigger(defaultTrustPolicy, eve, labelled, [edit(eve, "2026-12-01T20:40:00Z")])._tag,
      "Refused",
      "an edit in the same second as the label cannot be told to be before it"
    )
  })

  it("collaborators: an edit before the label, a label added again after the edit, or a trusted editor vouches", () => {
    assert.strictEqual(judgeTrigger(defaultTrustPolicy, eve, labelled, [edit(eve, "2026-12-01T20:39:59Z")])._tag, "Trusted")
    const again = [{ ...labelled[0]!, addedAt: "2026-12-01T20:45:00Z" }]
    assert.strictEqual(judgeTrigger(defaultTrustPolicy, eve, again, [edit(eve, "2026-12-01T20:41:30Z")])._tag, "Trusted")
    assert.strictEqual(judgeTrigger(defaultTrustPolicy, eve, labelled, [edit(writer, "2026-12-01T20:41:30Z")])._tag, "Trusted")
    assert.strictEqual(judgeTrigger(listing("eve"), eve, labelled, [edit(eve, "2026-12-01T20:41:30Z")])._tag, "Trusted", "a listed editor")
    assert.strictEqual(judgeTrigger(defaultTrustPolicy, writer, labelled, [edit(writer, "2026-12-01T20:41:30Z")])._tag, "Trusted", "a trusted author's own edit")
  })

  it("collaborators: every label the Loop depends on must be newer than an untrusted edit; a bot's edit is untrusted", () => {
    const two = [...labelled, { label: "bug", actor: writer, addedAt: "2026-12-01T20:50:00Z" }]
    const refused = judgeTrigger(defaultTrustPolicy, eve, two, [edit(eve, "2026-12-01T20:41:30Z")])
    assert.include(refused._tag === "Refused" ? refused.reason : "", "after ada added ready-for-agent")
    assert.strictEqual(judgeTrigger(defaultTrustPolicy, writer, labelled, [edit(bot, "2026-12-01T20:41:30Z")])._tag, "Refused")
  })

  it("collaborators without labels, strict and anyone: edits change nothing", () => {
    assert.strictEqual(judgeTrigger(defaultTrustPolicy, writer, [], [edit(eve, "2026-12-01T20:41:30Z")])._tag, "Trusted")
    const strict: TrustPolicy = { mode: "strict", trustedAuthors: [] }
    assert.strictEqual(judgeTrigger(strict, writer, labelled, [edit(writer, "2026-12-01T20:41:30Z")])._tag, "Trusted")
    const anyone: TrustPolicy = { mode: "anyone", trustedAuthors: [] }
    assert.strictEqual(judgeTrigger(anyone, eve, labelled, [edit(eve, "2026-12-01T20:41:30Z")])._tag, "Trusted")
  })
})
