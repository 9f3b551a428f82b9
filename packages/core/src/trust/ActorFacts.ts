/** What GitHub says about one account on one repository, as trigger trust needs it. */
export interface ActorFacts {
  readonly login: string
  /** A GitHub App or other `Bot` account. */
  readonly isBot: boolean
  /** Push access: GitHub's `write`, `maintain` or `admin`. */
  readonly canWrite: boolean
  /** The access as a refusal reads it: `triage access`, `no access`, `no collaborator access (NONE)`. */
  readonly access: string
}

/**
 * The last change of an Item's title or body that GitHub reports: who made it and when (ISO 8601). `how` reads
 * `edited` for the body (GraphQL `lastEditedAt`, `editor`) and `renamed` for the title (the `renamed` issue event).
 */
export interface ContentEdit {
  readonly how: "edited" | "renamed"
  readonly at: string
  readonly editor: ActorFacts
}

/** Author associations that may hide write access; any other association rules it out without asking GitHub. */
export const COLLABORATOR_ASSOCIATIONS: ReadonlySet<string> = new Set(["OWNER", "MEMBER", "COLLABORATOR"])

/** Bots carry `[bot]` in REST logins; the GraphQL `Bot` type and REST `type: "Bot"` are the other signs. */
export const looksLikeBot = (login: string): boolean => /\[bot\]$/i.test(login)

/** The facts of an account whose author association already rules out write access. */
export const outsiderFacts = (login: string, association: string): ActorFacts => ({
  login,
  isBot: looksLikeBot(login),
  canWrite: false,
  access: `no collaborator access (${association})`
})
