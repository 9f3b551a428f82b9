import { Schema } from "effect"

/** `<attemptDir>/workspace.json`: enough for a later process to find and remove the worktree. */
export class WorkspaceRecord extends Schema.Class<WorkspaceRecord>("WorkspaceRecord")({
  attemptId: Schema.String,
  repository: Schema.String,
  mirror: Schema.String,
  worktree: Schema.String,
  ref: Schema.String,
  baseSha: Schema.String
}) {}

export const WorkspaceRecordJson = Schema.parseJson(WorkspaceRecord)
