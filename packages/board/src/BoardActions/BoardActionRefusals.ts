import { Schema } from "effect"

/** The Item is not on the Board: not in a configured repository, or never polled. */
export class ItemNotOnBoard extends Schema.TaggedError<ItemNotOnBoard>()("ItemNotOnBoard", {
  repository: Schema.String,
  number: Schema.Number
}) {
  override get message() {
    return `${this.repository}#${this.number} is not on the board`
  }
}

/** No Board column has this name. */
export class UnknownColumn extends Schema.TaggedError<UnknownColumn>()("UnknownColumn", { column: Schema.String }) {
  override get message() {
    return `no board column is named ${this.column}`
  }
}
