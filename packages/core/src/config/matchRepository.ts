/** Whether `owner/name` matches a selector entry such as `acme/*` (case-insensitive, as GitHub names are). */
export const matchRepository = (pattern: string, repository: string): boolean => {
  const source = pattern
    .toLowerCase()
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\/-]/g, "\\$&"))
    .join("[^/]*")
  return new RegExp(`^${source}$`).test(repository.toLowerCase())
}

/** The declared repositories a Loop's selector picks; no selector picks them all. */
export const selectRepositories = (
  selector: ReadonlyArray<string> | undefined,
  repositories: ReadonlyArray<string>
): ReadonlyArray<string> =>
  selector === undefined
    ? repositories
    : repositories.filter((repository) => selector.some((pattern) => matchRepository(pattern, repository)))
