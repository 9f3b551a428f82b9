import { assert, describe, it } from "@effect/vitest"
import { isTransient } from "../../src/Harvest/attemptGit"
import { GitCommandFailed } from "../../src/Workspace/WorkspaceFailures"

const failed = (stderr: string) => new GitCommandFailed({ command: "git push", exitCode: 1, stderr })

describe("isTransient", () => {
  it("takes a 5xx answer or an unreachable host for transient", () => {
    assert.isTrue(isTransient(failed("error: RPC failed; HTTP 502 curl 22 The requested URL returned error: 502")))
    assert.isTrue(isTransient(failed("fatal: unable to access 'http://127.0.0.1:9/a/b.git/': Failed to connect")))
  })

  it("does not take a refused push for transient because the remote's port holds 502, 503 or 504", () => {
    const stderr = " ! [rejected]        HEAD -> usine/x (stale info)\nerror: failed to push some refs to 'http://127.0.0.1:45031/acme/widgets.git'"
    assert.isFalse(isTransient(failed(stderr)))
  })
})
