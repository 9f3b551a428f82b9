import { Effect } from "effect"
import { GraphQLError } from "graphql"
import { branchSha } from "../git/BareRepository"
import { isoSeconds } from "../world/SimClock"
import type { SimRepository } from "../world/SimRepository"
import type { SimWorld } from "../world/SimWorld"
import { actorNode } from "./actorNode"
import { connection, type ConnectionArgs } from "./connection"
import { itemNode, labelNode } from "./itemNode"

const notFound = (what: string, number: number) =>
  new GraphQLError(`Could not resolve to ${what} with the number of ${number}.`, { extensions: { type: "NOT_FOUND" } })

/** A `Repository` node: metadata, items by number, the label catalog and the default branch. */
export const repositoryNode = (world: SimWorld, repo: SimRepository) => {
  const item = (number: number) => repo.items.get(number)
  return {
    __typename: "Repository",
    id: `R_sim${repo.id}`,
    databaseId: repo.id,
    name: repo.name,
    nameWithOwner: repo.fullName,
    owner: actorNode(world, repo.owner),
    description: repo.description,
    isPrivate: repo.isPrivate,
    url: `${world.baseUrl}/${repo.fullName}`,
    createdAt: isoSeconds(repo.createdAt),
    updatedAt: isoSeconds(repo.updatedAt),
    pushedAt: isoSeconds(repo.pushedAt),
    issue: ({ number }: { readonly number: number }) => {
      const found = item(number)
      if (found === undefined || found.pull !== undefined) throw notFound("an Issue", number)
      return itemNode(world, repo, found)
    },
    pullRequest: ({ number }: { readonly number: number }) => {
      const found = item(number)
      if (found?.pull === undefined) throw notFound("a PullRequest", number)
      return itemNode(world, repo, found)
    },
    issueOrPullRequest: ({ number }: { readonly number: number }) => {
      const found = item(number)
      if (found === undefined) throw notFound("an issue or pull request", number)
      return itemNode(world, repo, found)
    },
    labels: (args: ConnectionArgs & { readonly query?: string | null }) => {
      const query = args.query?.toLowerCase()
      const labels = [...repo.labels.values()]
        .filter((label) => query == null || label.name.toLowerCase().includes(query))
        .sort((a, b) => a.name.localeCompare(b.name))
      return connection("labels", labels.map((label) => labelNode(world, repo, label)), args)
    },
    defaultBranchRef: () =>
      Effect.runPromise(Effect.orDie(branchSha(repo.gitDir, repo.defaultBranch))).then((oid) =>
        oid === undefined
          ? null
          : {
              __typename: "Ref",
              id: `REF_sim${repo.id}`,
              name: repo.defaultBranch,
              prefix: "refs/heads/",
              target: { __typename: "Commit", id: `C_sim${oid}`, oid, abbreviatedOid: oid.slice(0, 7) }
            }
      )
  }
}
