import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import { Unprocessable } from "../world/ApiError"
import type { SimWorld } from "../world/SimWorld"
import type { SimControl } from "./SimControl"

/** OAuth Apps: registering one with its callback URL. */
export const oauthControl = (world: SimWorld): Pick<SimControl, "createOAuthApp"> => ({
  createOAuthApp: Effect.fn("GitHubSim.createOAuthApp")(function* (input) {
    if (!URL.canParse(input.callbackUrl)) {
      return yield* Effect.fail(new Unprocessable({ errors: [], summary: `callbackUrl ${input.callbackUrl} is not a URL` }))
    }
    const app = {
      clientId: input.clientId ?? `Ov23sim${randomBytes(7).toString("hex")}`,
      clientSecret: input.clientSecret ?? randomBytes(20).toString("hex"),
      name: input.name ?? "usine",
      callbackUrl: input.callbackUrl
    }
    world.oauth.add(app)
    return { clientId: app.clientId, clientSecret: app.clientSecret }
  })
})
