import { randomBytes } from "node:crypto"
import { mkdir, rm, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { Effect } from "effect"
import { bareRepositoryPath, commitDirectory, initBare } from "../git/BareRepository"
import type { FaultInjector } from "../http/FaultInjector"
import type { RateLimits } from "../http/RateLimits"
import type { RequestLog } from "../http/RequestLog"
import { commentJson, issueJson } from "../rest/json/issueJson"
import { labelJson } from "../rest/json/labelJson"
import { isPull } from "../rest/json/pullJson"
import { cloneUrl } from "../rest/json/repositoryJson"
import { NotFound, Unprocessable } from "../world/ApiError"
import { defaultLabels } from "../world/defaultLabels"
import { addComment, createIssue, findItem, updateIssue } from "../world/issueWrites"
import { addLabels, createLabel, removeLabel } from "../world/labelWrites"
import { SimRepository } from "../world/SimRepository"
import type { SimWorld } from "../world/SimWorld"
import { appControl } from "./appControl"
import { feedbackControl } from "./feedbackControl"
import { oauthControl } from "./oauthControl"
import { pullControl } from "./pullControl"
import type { SimControl } from "./SimControl"

/** What the control surface drives. */
interface ControlDeps {
  readonly world: SimWorld
  readonly faults: FaultInjector
  readonly limits: RateLimits
  readonly log: RequestLog
}

const splitRepo = (world: SimWorld, full: string) => {
  const [owner, name, ...rest] = full.split("/")
  return owner === undefined || name === undefined || rest.length > 0
    ? Effect.fail(new NotFound({ resource: `repository ${full}` }))
    : world.repository(owner, name)
}

/** The control surface over one emulator's state. */
export const makeSimControl = ({ world, faults, limits, log }: ControlDeps): SimControl => {
  const itemIn = (full: string, number: number) =>
    Effect.flatMap(splitRepo(world, full), (repo) => Effect.map(findItem(repo, number), (item) => ({ repo, item })))

  const pullIn = (full: string, number: number) =>
    Effect.flatMap(itemIn(full, number), ({ repo, item }) =>
      isPull(item) ? Effect.succeed({ repo, item }) : Effect.fail(new NotFound({ resource: `pull ${full}#${number}` }))
    )

  const seed = Effect.fn("GitHubSim.seed")(function* (repo: SimRepository, directory: string) {
    const who = { name: repo.owner, email: `${repo.owner}@users.noreply.github.local`, at: world.now() }
    return yield* commitDirectory(repo.gitDir, directory, repo.defaultBranch, "Initial commit", who)
  })

  const seedFiles = Effect.fn("GitHubSim.seedFiles")(function* (repo: SimRepository, files: Readonly<Record<string, string>>) {
    const directory = join(world.dataDir, "seed", String(repo.id))
    return yield* Effect.acquireUseRelease(
      Effect.promise(async () => {
        for (const [path, content] of Object.entries(files)) {
          await mkdir(dirname(join(directory, path)), { recursive: true })
          await writeFile(join(directory, path), content)
        }
      }),
      () => seed(repo, directory),
      () => Effect.promise(() => rm(directory, { recursive: true, force: true }))
    )
  })

  return {
    createUser: Effect.fn("GitHubSim.createUser")(function* (input) {
      const user = world.account(input.login)
      if (user.token !== "") return yield* Effect.fail(new Unprocessable({ errors: [], summary: `user ${input.login} already has a token` }))
      const token = input.token ?? `ghp_sim${randomBytes(16).toString("hex")}`
      const registered = {
        ...user,
        token,
        type: input.bot === true ? ("Bot" as const) : user.type,
        defaultPermission: input.permission ?? "write",
        repositories: new Map(Object.entries(input.repositories ?? {}).map(([repo, role]) => [repo.toLowerCase(), role]))
      }
      world.users.set(user.login.toLowerCase(), registered)
      world.tokens.set(token, registered)
      return { login: registered.login, id: registered.id, token }
    }),

    createFineGrainedToken: Effect.fn("GitHubSim.createFineGrainedToken")(function* (input) {
      const user = yield* world.user(input.login)
      const token = `github_pat_sim${randomBytes(24).toString("hex")}`
      world.tokens.set(token, user)
      world.fineGrained.grant(token, input.permissions)
      return { token }
    }),

    setPermission: Effect.fn("GitHubSim.setPermission")(function* (input) {
      const user = yield* world.user(input.login)
      user.repositories.set(input.repo.toLowerCase(), input.permission)
    }),

    setTeamMembers: Effect.fn("GitHubSim.setTeamMembers")(function* (input) {
      const members = new Map<string, "member" | "maintainer">()
      for (const login of input.members) members.set(world.account(login).login.toLowerCase(), "member")
      for (const login of input.maintainers ?? []) members.set(world.account(login).login.toLowerCase(), "maintainer")
      world.teams.set(`${input.org}/${input.team}`.toLowerCase(), members)
      yield* Effect.void
    }),

    createRepository: Effect.fn("GitHubSim.createRepository")(function* (input) {
      if (world.repositories.has(`${input.owner}/${input.name}`.toLowerCase())) {
        return yield* Effect.fail(new Unprocessable({ errors: [{ resource: "Repository", field: "name", code: "custom", message: "name already exists on this account" }] }))
      }
      const owner = world.account(input.owner)
      const defaultBranch = input.defaultBranch ?? "main"
      const gitDir = bareRepositoryPath(world.dataDir, owner.login, input.name)
      yield* initBare(gitDir, defaultBranch)
      const repo = new SimRepository(world.nextId(), owner.login, input.name, defaultBranch, input.private ?? false, input.description ?? null, world.now(), gitDir)
      if (input.defaultLabels !== false) {
        for (const label of defaultLabels) {
          repo.labels.set(label.name.toLowerCase(), { ...label, id: world.nextId(), isDefault: true })
        }
      }
      const headSha =
        input.seedDirectory !== undefined ? yield* seed(repo, input.seedDirectory)
        : input.files !== undefined ? yield* seedFiles(repo, input.files)
        : null
      world.repositories.set(repo.fullName.toLowerCase(), repo)
      return { fullName: repo.fullName, cloneUrl: cloneUrl(world, repo), defaultBranch, headSha }
    }),

    createIssue: Effect.fn("GitHubSim.createIssue")(function* (input) {
      const repo = yield* splitRepo(world, input.repo)
      const item = yield* createIssue(world, repo, input.author ?? repo.owner, {
        title: input.title,
        ...(input.body === undefined ? {} : { body: input.body }),
        ...(input.labels === undefined ? {} : { labels: input.labels }),
        ...(input.assignees === undefined ? {} : { assignees: input.assignees }),
        ...(input.state === undefined ? {} : { state: input.state })
      })
      return issueJson(world, repo, item)
    }),

    updateIssue: Effect.fn("GitHubSim.updateIssue")(function* ({ repo: full, number, actor, ...patch }) {
      const { repo, item } = yield* itemIn(full, number)
      yield* updateIssue(world, repo, item, actor ?? repo.owner, patch)
      return issueJson(world, repo, item)
    }),

    addComment: Effect.fn("GitHubSim.addComment")(function* (input) {
      const { repo, item } = yield* itemIn(input.repo, input.number)
      const comment = yield* addComment(world, item, input.author ?? repo.owner, input.body)
      return commentJson(world, repo, item, comment)
    }),

    createLabel: Effect.fn("GitHubSim.createLabel")(function* ({ repo: full, ...label }) {
      const repo = yield* splitRepo(world, full)
      return labelJson(world, repo, yield* createLabel(world, repo, label))
    }),

    addLabels: Effect.fn("GitHubSim.addLabels")(function* (input) {
      const { repo, item } = yield* itemIn(input.repo, input.number)
      yield* addLabels(world, repo, item, input.labels, input.actor ?? repo.owner)
      return issueJson(world, repo, item)
    }),

    removeLabel: Effect.fn("GitHubSim.removeLabel")(function* (input) {
      const { repo, item } = yield* itemIn(input.repo, input.number)
      yield* removeLabel(world, repo, item, input.label, input.actor ?? repo.owner)
      return issueJson(world, repo, item)
    }),

    ...pullControl(world, (full) => splitRepo(world, full), pullIn),
    ...feedbackControl(world, (full) => splitRepo(world, full), pullIn),
    ...appControl(world),
    ...oauthControl(world),

    setFault: Effect.fn("GitHubSim.setFault")(function* (spec) {
      return { id: faults.add(spec) }
    }),
    clearFaults: Effect.fn("GitHubSim.clearFaults")(function* () {
      faults.clear()
    }),
    requestLog: Effect.fn("GitHubSim.requestLog")(function* () {
      return log.list()
    }),
    clearRequestLog: Effect.fn("GitHubSim.clearRequestLog")(function* () {
      log.clear()
    }),
    setTime: Effect.fn("GitHubSim.setTime")(function* (input) {
      world.clock.setTime(input.at)
    }),
    advanceTime: Effect.fn("GitHubSim.advanceTime")(function* (input) {
      world.clock.advance(input.ms)
    }),
    setRateLimit: Effect.fn("GitHubSim.setRateLimit")(function* (input) {
      const user = yield* world.user(input.login)
      limits.override(user, input.resource ?? "core", {
        ...(input.limit === undefined ? {} : { limit: input.limit }),
        ...(input.remaining === undefined ? {} : { remaining: input.remaining }),
        ...(input.resetAt === undefined ? {} : { resetAt: new Date(input.resetAt).getTime() })
      })
    })
  }
}
