import { Context, type Effect, Schema } from "effect"

/** GitHub refused or failed the label write; the card stays where it was. */
export class BoardMoveFailed extends Schema.TaggedError<BoardMoveFailed>()("BoardMoveFailed", {
  repository: Schema.String,
  number: Schema.Number,
  detail: Schema.String,
  /** GitHub's status when it answered the write with one (401 and 403 make the Board read the person's role again). */
  githubStatus: Schema.optional(Schema.Number)
}) {
  override get message() {
    return `could not move ${this.repository}#${this.number}: ${this.detail}`
  }
}

/** Where a card move goes: the app implements it with the GitHub client and the polling's Hint queue. */
export class BoardMoves extends Context.Tag("usine/BoardMoves")<
  BoardMoves,
  {
    /**
     * Swaps the Item's column label (removes `fromLabel` when given, adds `toLabel`), then sends polling a Hint for
     * the Item. Removing an absent label or adding a present one is no error, so a repeated move is harmless.
     */
    readonly move: (
      repository: string,
      number: number,
      fromLabel: string | undefined,
      toLabel: string
    ) => Effect.Effect<void, BoardMoveFailed>
  }
>() {}
