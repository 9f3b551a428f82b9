import { type IncomingHttpHeaders, request } from "node:http"

interface HttpResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

interface RequestOptions {
  readonly method?: string
  readonly headers?: Readonly<Record<string, string | undefined>>
  readonly body?: string
}

/** One real HTTP exchange on 127.0.0.1, with full control of the headers (fetch would not let us forge Host). */
export const send = (port: number, path: string, options: RequestOptions = {}): Promise<HttpResponse> =>
  new Promise((resolve, reject) => {
    const headers = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string>
    const req = request({ host: "127.0.0.1", port, path, method: options.method ?? "GET", headers }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
    if (options.body !== undefined) req.write(options.body)
    req.end()
  })

interface PostOptions {
  /** The Origin header; `null` sends none. Defaults to the Board's own origin. */
  readonly origin?: string | null
  readonly referer?: string
  /** The CSRF token to submit; `null` submits none. Defaults to the cookie's. */
  readonly csrf?: string | null
  /** Ask for JSON (the script's fetch); otherwise a plain form post. */
  readonly json?: boolean
  readonly headers?: Readonly<Record<string, string>>
}

/** A browser: keeps cookies, sends its Host and Origin, submits forms with the CSRF token. */
export class BoardClient {
  readonly cookies = new Map<string, string>()
  constructor(readonly port: number, readonly host = `127.0.0.1:${port}`) {}

  get origin(): string {
    return `http://${this.host}`
  }

  private remember(response: HttpResponse): HttpResponse {
    for (const line of response.headers["set-cookie"] ?? []) {
      const [pair] = line.split(";")
      const [name, value] = (pair ?? "").split("=")
      if (name !== undefined && value !== undefined) this.cookies.set(name.trim(), value.trim())
    }
    return response
  }

  private cookieHeader(): string | undefined {
    return this.cookies.size === 0 ? undefined : [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
  }

  async get(path: string, headers: Readonly<Record<string, string>> = {}): Promise<HttpResponse> {
    return this.remember(await send(this.port, path, { headers: { host: this.host, cookie: this.cookieHeader(), ...headers } }))
  }

  /** The CSRF token the Board gave this browser (a first page view sets it). */
  async csrf(): Promise<string> {
    if (!this.cookies.has("usine_csrf")) await this.get("/login")
    if (!this.cookies.has("usine_csrf")) await this.get("/")
    return this.cookies.get("usine_csrf") ?? ""
  }

  async post(path: string, fields: Readonly<Record<string, string | number>>, options: PostOptions = {}): Promise<HttpResponse> {
    const token = options.csrf === undefined ? await this.csrf() : options.csrf
    const form = new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]))
    if (token !== null) form.set("_csrf", token)
    const origin = options.origin === undefined ? this.origin : options.origin
    return this.remember(
      await send(this.port, path, {
        method: "POST",
        headers: {
          host: this.host,
          cookie: this.cookieHeader(),
          "content-type": "application/x-www-form-urlencoded",
          origin: origin ?? undefined,
          referer: options.referer,
          accept: options.json === true ? "application/json" : "text/html",
          ...options.headers
        },
        body: form.toString()
      })
    )
  }

  /** A JSON action, as the page script sends it. */
  async act(path: string, fields: Readonly<Record<string, string | number>> = {}) {
    const response = await this.post(path, fields, { json: true })
    return { status: response.status, body: JSON.parse(response.body) as Record<string, unknown> }
  }
}
