import { Effect } from "effect"

/** One Playwright call as an Effect; a rejection (a timeout, a missing element) fails the test with its message. */
export const step = <A>(call: () => Promise<A>) => Effect.promise(call)
