import { Layer } from "effect"
import * as LocalTransport from "../src/LocalTransport"
import * as ShellTransport from "../src/ShellTransport"
import { localShellRunner } from "./support/localShellRunner"
import { WorkerTransport } from "../src/WorkerTransport"
import { sessionContract } from "./sessionContract"

sessionContract("LocalTransport", LocalTransport.layer)
sessionContract(
  "ShellTransport through a local sh",
  Layer.sync(WorkerTransport, () => ShellTransport.make(localShellRunner()))
)
