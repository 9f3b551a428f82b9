import { assert } from "@effect/vitest"
import { Effect } from "effect"

interface Answer {
  readonly status: number
  readonly location: string | null
  readonly text: string
}

/** A browser without JavaScript: its cookies per origin, redirects followed by hand so each hop can be checked. */
export const browser = () => {
  const jars = new Map<string, Map<string, string>>()
  const jarOf = (url: string) => {
    const origin = new URL(url).origin
    const jar = jars.get(origin) ?? new Map<string, string>()
    jars.set(origin, jar)
    return jar
  }
  const send = (url: string, init: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string | URLSearchParams } = {}) =>
    Effect.promise(async (): Promise<Answer> => {
      const jar = jarOf(url)
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ")
      const response = await fetch(url, {
        method: init.method ?? "GET",
        redirect: "manual",
        headers: { ...(cookie === "" ? {} : { cookie }), ...init.headers },
        ...(init.body === undefined ? {} : { body: init.body })
      })
      for (const line of response.headers.getSetCookie()) {
        const [pair = "", ...attributes] = line.split(";")
        const [name = "", ...value] = pair.split("=")
        const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))
        if (gone) jar.delete(name.trim())
        else jar.set(name.trim(), value.join("="))
      }
      const location = response.headers.get("location")
      return { status: response.status, location: location === null ? null : new URL(location, url).toString(), text: await response.text() }
    })
  return { send, cookie: (url: string, name: string) => jarOf(url).get(name) }
}

/** The chooser's form as posted with `login` chosen. */
const chosen = (page: string, login: string) => {
  const fields = new URLSearchParams()
  for (const match of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.set(match[1] ?? "", (match[2] ?? "").replaceAll("&amp;", "&"))
  }
  fields.set("login", login)
  return fields
}

/** Through GitHub's chooser up to the redirect back: the callback URL carrying `code` and `state`. */
export const toCallback = (b: ReturnType<typeof browser>, boardUrl: string, login: string) =>
  Effect.gen(function* () {
    const start = yield* b.send(`${boardUrl}auth/github`)
    assert.strictEqual(start.status, 303)
    const authorize = new URL(start.location ?? "")
    assert.strictEqual(authorize.searchParams.get("code_challenge_method"), "S256")
    assert.isNull(authorize.searchParams.get("code_verifier"), "the verifier never leaves the daemon")
    const page = yield* b.send(authorize.toString())
    assert.strictEqual(page.status, 200)
    const granted = yield* b.send(`${authorize.origin}/login/oauth/authorize`, { method: "POST", body: chosen(page.text, login) })
    assert.strictEqual(granted.status, 302)
    return granted.location ?? ""
  })

/** A whole sign-in as `login`; the callback's answer. */
export const signIn = (b: ReturnType<typeof browser>, boardUrl: string, login: string) =>
  Effect.flatMap(toCallback(b, boardUrl, login), (callback) => b.send(callback))

/** A Board action from a signed-in browser: same Origin, the CSRF token of its cookie, JSON back. */
export const act = (b: ReturnType<typeof browser>, boardUrl: string, path: string, body: Record<string, unknown> = {}) =>
  Effect.map(
    b.send(`${boardUrl}${path.slice(1)}`, {
      method: "POST",
      headers: {
        accept: "application/json",
        "content-type": "application/json",
        origin: boardUrl.replace(/\/$/, ""),
        "x-csrf-token": b.cookie(boardUrl, "usine_csrf") ?? ""
      },
      body: JSON.stringify(body)
    }),
    (answer) => ({ status: answer.status, body: JSON.parse(answer.text) as Record<string, unknown> })
  )
