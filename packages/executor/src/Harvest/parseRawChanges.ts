/** One entry of `git diff --raw -z --no-renames --no-abbrev`: both sides' modes and blob ids, and the path. */
interface RawChange {
  readonly oldMode: string
  readonly newMode: string
  readonly oldSha: string
  readonly newSha: string
  /** `A`dded, `M`odified, `D`eleted, `T`ype changed. */
  readonly status: string
  readonly path: string
}

/** Git's modes for a symbolic link and for a submodule (gitlink) entry. */
export const LINK_MODE = "120000"
export const GITLINK_MODE = "160000"

/** Reads `:100644 100644 <sha> <sha> M\0path\0` records; anything malformed ends the list. */
export const parseRawChanges = (out: string): ReadonlyArray<RawChange> => {
  const fields = out.split("\0")
  const changes: Array<RawChange> = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const header = fields[i] ?? ""
    const path = fields[i + 1] ?? ""
    const match = /^:(\d{6}) (\d{6}) ([0-9a-f]{40}) ([0-9a-f]{40}) ([A-Z])\d*$/.exec(header)
    if (match === null) break
    const [, oldMode = "", newMode = "", oldSha = "", newSha = "", status = ""] = match
    changes.push({ oldMode, newMode, oldSha, newSha, status, path })
  }
  return changes
}
