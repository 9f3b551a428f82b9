/** `owner/name` as the REST routes' `owner` and `repo` parameters. */
export const repositoryParts = (repository: string): { readonly owner: string; readonly repo: string } => {
  const [owner = "", repo = ""] = repository.split("/")
  return { owner, repo }
}
