import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { version } from "../package.json"
import { BUNDLE } from "../scripts/packCli"

const containerfile = readFileSync(fileURLToPath(new URL("../../../docs/Containerfile", import.meta.url)), "utf8")

/** Where npm installs the package globally in the Node image (its prefix is /usr/local). */
const INSTALLED = "/usr/local/lib/node_modules/usine"

describe("docs/Containerfile (issue 34): unbuilt here, so its references to the package are checked", () => {
  it("installs the tarball pack:cli names for this version, and links usine to the package's bin", () => {
    assert.match(containerfile, new RegExp(`^ARG USINE_VERSION=${version.replaceAll(".", "\\.")}$`, "m"), "the default version is the app's")
    // `npm pack` names the tarball <name>-<version>.tgz, the name pack:cli prints.
    assert.include(containerfile, "COPY usine-${USINE_VERSION}.tgz /tmp/\n")
    assert.include(containerfile, "RUN npm install --global --no-audit --no-fund /tmp/usine-${USINE_VERSION}.tgz\n")
    assert.include(containerfile, `COPY --from=install ${INSTALLED} ${INSTALLED}\n`)
    assert.include(containerfile, `RUN ln -s ${INSTALLED}/${BUNDLE} /usr/local/bin/usine`)
  })

  it("runs as a user that is not root, with bubblewrap and socat installed, and starts usine up on the volume's usine.yaml", () => {
    assert.match(containerfile, /^USER usine$/m)
    assert.match(containerfile, /useradd --create-home --uid 10001 /)
    assert.match(containerfile, /apt-get install -y --no-install-recommends bubblewrap socat git /)
    assert.match(containerfile, /^FROM \$\{NODE_IMAGE\}$/m)
    assert.match(containerfile, /^ARG NODE_IMAGE=node:20-bookworm-slim$/m)
    assert.match(containerfile, /^STOPSIGNAL SIGTERM$/m)
    assert.include(containerfile, 'ENTRYPOINT ["usine"]\nCMD ["up", "--config", "/var/lib/usine/usine.yaml"]\n')
  })
})
