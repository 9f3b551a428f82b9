import { Option, ParseResult, Schema } from "effect"
import { NonEmptyString, Secret } from "./ConfigScalars"

/** `host:port`; `[::1]:8787` for IPv6. */
const ListenAddress = Schema.transformOrFail(
  Schema.String.annotations({ description: "an address `host:port`" }),
  Schema.Struct({ host: Schema.String, port: Schema.Number }),
  {
    strict: true,
    decode: (address, _, ast) => {
      const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address.trim())
      const port = Number(match?.[3])
      const host = match?.[1] ?? match?.[2]
      return host !== undefined && port >= 1 && port <= 65535
        ? ParseResult.succeed({ host, port })
        : ParseResult.fail(
            new ParseResult.Type(ast, address, `expected an address \`host:port\` like 127.0.0.1:8787, got ${JSON.stringify(address)}`)
          )
    },
    encode: ({ host, port }) => ParseResult.succeed(`${host.includes(":") ? `[${host}]` : host}:${port}`)
  }
)

/** A Board column: the Items that carry `label`. */
export const BoardColumn = Schema.Struct({ name: NonEmptyString, label: NonEmptyString })
export type BoardColumn = typeof BoardColumn.Type

/** The operator's web Board. */
export const BoardConfig = Schema.Struct({
  listen: Schema.optionalWith(ListenAddress, { default: () => ({ host: "127.0.0.1", port: 8787 }) }),
  /** The public name the Board is reached at, for links; absent means the listen address. */
  hostName: Schema.optional(NonEmptyString).pipe(Schema.fromKey("host_name")),
  /** Required to act on the Board when set; empty means none. */
  token: Schema.optionalWith(Secret, { default: () => Option.none() }),
  columns: Schema.optionalWith(Schema.Array(BoardColumn), { default: () => [] })
})
export type BoardConfig = typeof BoardConfig.Type
