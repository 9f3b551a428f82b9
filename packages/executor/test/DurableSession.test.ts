import { Layer } from "effect"
import * as LocalTransport from "../src/LocalTransport"
import * as ShellTransport from "../src/ShellTransport"
import { localShellRunner } from "../src/ShellTransport/localShellRunner"
import { WorkerTransport } from "../src/WorkerTransport"
import { sessionContract } from "./sessionContract"

sessionContract("LocalTransport", LocalTransport.layer)
sessionContract(
  "ShellTransport through a local sh",
  Layer.sync(WorkerTransport, () => ShellTransport.make(localShellRunner()))
)
