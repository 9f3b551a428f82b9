import { Duration, Schema } from "effect"
import { AgentConfig } from "./AgentConfig"
import { BoardConfig } from "./BoardConfig"
import { GlobalBudget } from "./BudgetConfig"
import type { CompiledLoop } from "./CompiledLoop"
import { Interval, Name, RepositoryName } from "./ConfigScalars"
import { GitHubConfig } from "./GitHubConfig"
import { HaConfig } from "./HaConfig"
import { LedgerConfig } from "./LedgerConfig"
import { LabelConfig } from "./LabelConfig"
import { LoopConfig } from "./LoopConfig"
import { NotifyEndpoint } from "./NotifyConfig"
import { WorkerConfig } from "./WorkerConfig"

const defaults = <A, I>(schema: Schema.Schema<A, I>, encoded: I) => () => Schema.decodeSync(schema)(encoded)

/** The whole of usine.yaml as written (snake_case keys), decoded; unknown keys are rejected by the decoder. */
export const UsineConfigFile = Schema.Struct({
  github: Schema.optionalWith(GitHubConfig, { default: defaults(GitHubConfig, {}) }),
  /** The repositories usine polls, `owner/name`. */
  repositories: Schema.Array(RepositoryName).pipe(
    Schema.minItems(1),
    Schema.annotations({ description: "a list of at least one repository `owner/name`" })
  ),
  pollInterval: Schema.optionalWith(Interval, { default: () => Duration.seconds(60) }).pipe(Schema.fromKey("poll_interval")),
  /** The ledger: a SQLite file (the default), or a PostgreSQL database (ADR 0106). */
  ledger: Schema.optionalWith(LedgerConfig, { default: () => ({ _tag: "sqlite" as const, file: ".usine/ledger.db" }) }),
  /** Labels usine creates in every repository that lacks them. */
  labels: Schema.optionalWith(Schema.Array(LabelConfig), { default: () => [] }),
  board: Schema.optionalWith(BoardConfig, { default: defaults(BoardConfig, {}) }),
  agents: Schema.optionalWith(Schema.Record({ key: Name, value: AgentConfig }), { default: () => ({}) }),
  workers: Schema.optionalWith(Schema.Record({ key: Name, value: WorkerConfig }), {
    default: () => ({ local: Schema.decodeSync(WorkerConfig)({}) })
  }),
  loops: Schema.optionalWith(Schema.Array(LoopConfig), { default: () => [] }),
  /** Daily caps over every Loop together. */
  budget: Schema.optionalWith(GlobalBudget, { default: () => ({}) }),
  /** Where usine tells the operator what needs them (ADR 0061). */
  notify: Schema.optionalWith(Schema.Array(NotifyEndpoint), { default: () => [] }),
  /** A leader and standbys on one PostgreSQL ledger (ADR 0109). */
  ha: Schema.optionalWith(HaConfig, { default: defaults(HaConfig, {}) })
})
export type UsineConfigFile = typeof UsineConfigFile.Type

/** A loaded usine.yaml: checked, with every Loop compiled and its references resolved. */
export interface UsineConfig extends Omit<UsineConfigFile, "loops"> {
  readonly loops: ReadonlyArray<CompiledLoop>
}
