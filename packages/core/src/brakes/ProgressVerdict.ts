/** How an ended Attempt counts for the no-progress brake. */
export type ProgressVerdict =
  | { readonly _tag: "Progress"; readonly head: string | undefined; readonly pullRequest: number | undefined }
  | { readonly _tag: "NoProgress"; readonly evidence: string }
