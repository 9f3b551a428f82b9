import { assert, describe, it } from "@effect/vitest"
import { agentEndpoints } from "../../src/Sandbox/agentNetwork"
import { endpointOfUrl, parseEndpoint, planBridges } from "../../src/Sandbox/endpoints"

describe("the sandbox's network plan", () => {
  it("gives every allowed name a loopback address of its own, keeps loopback literals, refuses other IP literals", () => {
    const plan = planBridges(
      ["api.openai.com:443", "127.0.0.2:8080", "registry.npmjs.org:443", "api.openai.com:443", "localhost:3000", "10.0.0.5:80"].map(
        (text) => parseEndpoint(text) ?? { host: "?", port: 0 }
      )
    )
    assert.deepStrictEqual(
      plan.bridges.map((b) => [b.socket, b.bind, b.port, b.target]),
      [
        ["0.sock", "127.0.0.3", 443, "api.openai.com:443"],
        ["1.sock", "127.0.0.2", 8080, "127.0.0.2:8080"],
        ["2.sock", "127.0.0.4", 443, "registry.npmjs.org:443"],
        ["3.sock", "127.0.0.1", 3000, "localhost:3000"]
      ]
    )
    assert.strictEqual(plan.hosts, "127.0.0.1 localhost\n127.0.0.3 api.openai.com\n127.0.0.4 registry.npmjs.org\n")
    assert.deepStrictEqual(plan.unsupported, ["10.0.0.5:80"])
  })

  it("reads endpoints and URLs strictly", () => {
    assert.deepStrictEqual(parseEndpoint("Registry.npmjs.org:443"), { host: "registry.npmjs.org", port: 443 })
    for (const bad of ["registry.npmjs.org", ":443", "host:0", "host:65536", "a b:1", "-x:1", "[::1]:80"]) {
      assert.isUndefined(parseEndpoint(bad), bad)
    }
    assert.deepStrictEqual(endpointOfUrl("https://api.example.com/v1"), { host: "api.example.com", port: 443 })
    assert.deepStrictEqual(endpointOfUrl("http://127.0.0.1:8123/v1"), { host: "127.0.0.1", port: 8123 })
    assert.isUndefined(endpointOfUrl("ftp://example.com/"))
  })

  it("allows the model endpoint a harness is pointed at, else its CLI's default host, then the named hosts", () => {
    const hosts = (input: Parameters<typeof agentEndpoints>[0]) => agentEndpoints(input).map((e) => `${e.host}:${e.port}`)
    assert.deepStrictEqual(hosts({ harness: "codex", env: {}, providerBaseUrl: undefined, named: [] }), ["api.openai.com:443", "chatgpt.com:443"])
    assert.deepStrictEqual(hosts({ harness: "pi", env: {}, providerBaseUrl: "http://127.0.0.1:9000/v1", named: ["registry.npmjs.org:443"] }), [
      "127.0.0.1:9000",
      "registry.npmjs.org:443"
    ])
    assert.deepStrictEqual(hosts({ harness: "claude", env: { ANTHROPIC_BASE_URL: "https://llm.internal:8443" }, providerBaseUrl: undefined, named: [] }), [
      "llm.internal:8443"
    ])
    assert.deepStrictEqual(hosts({ harness: "command", env: {}, providerBaseUrl: undefined, named: [] }), [])
  })
})
