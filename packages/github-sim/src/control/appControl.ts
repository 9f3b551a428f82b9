import { Effect } from "effect"
import type { SimWorld } from "../world/SimWorld"
import type { SimControl } from "./SimControl"

/** GitHub Apps: registering one with its installation, shortening installation tokens' life, counting their use. */
export const appControl = (world: SimWorld): Pick<SimControl, "createApp" | "setInstallationTokenLifetime" | "installationTokenCounts"> => ({
  createApp: Effect.fn("GitHubSim.createApp")(function* (input) {
    const repositories = input.repositories.map((repo) => repo.toLowerCase())
    const bot = world.account(`${input.slug}[bot]`)
    bot.defaultPermission = "none"
    for (const repo of repositories) bot.repositories.set(repo, "write")
    const installation = { id: world.nextId(), account: input.account, repositories }
    const app = { id: world.nextId(), slug: input.slug, publicKeyPem: input.publicKey, bot, installations: [installation] }
    world.apps.add(app)
    return { appId: app.id, installationId: installation.id, botLogin: bot.login }
  }),
  setInstallationTokenLifetime: Effect.fn("GitHubSim.setInstallationTokenLifetime")(function* (input) {
    world.apps.tokenLifetimeMs = input.seconds * 1000
  }),
  installationTokenCounts: Effect.fn("GitHubSim.installationTokenCounts")(function* () {
    return { ...world.apps.counts }
  })
})
