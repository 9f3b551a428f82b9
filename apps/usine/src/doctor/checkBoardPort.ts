import { Effect } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { checkPortFree } from "../daemon/checkPortFree"
import { fail, pass, type DoctorLine } from "./DoctorLine"

const urlOf = (host: string, port: number) => `http://${host.includes(":") ? `[${host}]` : host}:${port}`

/** Whether what listens there is a usine Board: its login page names usine. */
const boardAnswers = (url: string) =>
  Effect.tryPromise(async () => {
    const response = await fetch(`${url}/login`, { signal: AbortSignal.timeout(3000) })
    return response.ok && (await response.text()).toLowerCase().includes("usine")
  }).pipe(Effect.orElseSucceed(() => false))

/** The Board's port is free, or a usine daemon already serves its Board there (then `usine up` is not needed). */
export const checkBoardPort = (config: UsineConfig): Effect.Effect<DoctorLine> => {
  const { host, port } = config.board.listen
  const url = urlOf(host, port)
  return checkPortFree(host, port).pipe(
    Effect.as(pass(`board: ${host}:${port} is free`)),
    Effect.catchTag("BoardPortUnavailable", (error) =>
      error.code === "EADDRINUSE"
        ? Effect.map(boardAnswers(url), (usine) =>
            usine ? pass(`board: a usine daemon already runs at ${url}`) : fail(error.message)
          )
        : Effect.succeed(fail(error.message))
    )
  )
}
