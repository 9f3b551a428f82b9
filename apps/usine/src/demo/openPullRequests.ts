import { Effect } from "effect"
import { GitHubClient } from "@usine/github/GitHubClient"
import { repositoryParts } from "@usine/github/repositoryParts"

/** The open pull requests of a repository, as GitHub (here, the emulator) lists them. */
export const openPullRequests = (repository: string) =>
  Effect.flatMap(GitHubClient, (client) =>
    client.request("GET /repos/{owner}/{repo}/pulls", { ...repositoryParts(repository), state: "open", per_page: 100 })
  ).pipe(Effect.map((response) => response.data.map((pull) => ({ number: pull.number, title: pull.title, url: pull.html_url }))))
