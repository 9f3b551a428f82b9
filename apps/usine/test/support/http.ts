import { Effect, Option, Schedule } from "effect"
import { BOARD_TOKEN } from "./daemonConfig"

/** A JSON request on 127.0.0.1; fails on a non-2xx answer. */
export const json = <A>(url: string, init: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: unknown } = {}) =>
  Effect.tryPromise(async () => {
    const response = await fetch(url, {
      method: init.method ?? "GET",
      headers: { accept: "application/json", "content-type": "application/json", ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url} answered ${response.status}: ${text}`)
    return JSON.parse(text) as A
  })

/** The daemon's Board API, with the Board token (no CSRF for bearer requests). */
export const board = <A>(base: string, path: string, method = "GET") =>
  json<A>(`${base.replace(/\/$/, "")}${path}`, { method, headers: { authorization: `Bearer ${BOARD_TOKEN}` }, ...(method === "POST" ? { body: {} } : {}) })

/** Retries `check` every 250 ms until it yields a value, failing the test after `seconds`. */
export const eventually = <A, E, R>(label: string, check: Effect.Effect<Option.Option<A>, E, R>, seconds = 60) =>
  check.pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail("not yet"), onSome: Effect.succeed })),
    Effect.retry(Schedule.spaced("250 millis")),
    Effect.timeoutFail({ duration: `${seconds} seconds`, onTimeout: () => new Error(`never happened: ${label}`) })
  )
