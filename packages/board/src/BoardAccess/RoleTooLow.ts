import { Schema } from "effect"
import { RepositoryRole } from "@usine/core/people/RepositoryRole"

/** The signed-in person's role on the repository is below what the action needs. */
export class RoleTooLow extends Schema.TaggedError<RoleTooLow>()("RoleTooLow", {
  login: Schema.String,
  repository: Schema.String,
  action: Schema.String,
  needs: RepositoryRole,
  held: RepositoryRole
}) {
  override get message() {
    return `${this.action} needs the ${this.needs} role on ${this.repository}; @${this.login} has ${this.held}`
  }
}
