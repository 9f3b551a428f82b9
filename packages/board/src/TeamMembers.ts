import { Context, type Effect, Schema } from "effect"

/** GitHub could not say whether the person is in the team. */
export class TeamUnknown extends Schema.TaggedError<TeamUnknown>()("TeamUnknown", {
  team: Schema.String,
  login: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `could not read whether @${this.login} is in ${this.team} from GitHub: ${this.detail}`
  }
}

/** Team membership for `org/team` entries of `board.allow`: the app implements it with the daemon's GitHub client. */
export class TeamMembers extends Context.Tag("usine/TeamMembers")<
  TeamMembers,
  {
    /** Whether `login` is an active member of `team` (`org/team-slug`). */
    readonly isMember: (team: string, login: string) => Effect.Effect<boolean, TeamUnknown>
  }
>() {}
