import { Context, type Effect, Schema } from "effect"

/** GitHub could not say who labelled the Item. */
export class LabellerUnknown extends Schema.TaggedError<LabellerUnknown>()("LabellerUnknown", {
  repository: Schema.String,
  number: Schema.Number,
  detail: Schema.String
}) {
  override get message() {
    return `could not read who labelled ${this.repository}#${this.number} from GitHub: ${this.detail}`
  }
}

/** Who started a Run by labelling its Item, as GitHub's issue events say: the app implements it with its client. */
export class ItemLabellers extends Context.Tag("usine/ItemLabellers")<
  ItemLabellers,
  {
    /**
     * Of the labels the Loop's `if:` reads, the login of the person (not a bot, not usine) who added one newest before
     * the trigger saw the change at `receivedAt`; none when no person did.
     */
    readonly labellerOf: (
      item: { readonly repository: string; readonly number: number },
      ifSource: string,
      receivedAt: number
    ) => Effect.Effect<string | undefined, LabellerUnknown>
  }
>() {}
