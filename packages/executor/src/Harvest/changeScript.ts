/**
 * The daemon git commands that read a change for the guards (issue 31: one process, not three), as one
 * `runGitScript` in the harvest repository (`GIT_DIR`), between `$1` and `$2`. Stdout is the unified diff alone,
 * every file as text (`--text`; the repository is bare and has no attributes, so no `-diff`, `binary` or driver can
 * hide a file): the caller's output cap bounds it as it bounds a lone `git diff`. Each changed entry's modes and blob
 * ids go to the file `$3` (step `raw`), refused past `$5` bytes (step `raw-size`, its size on stderr's line before
 * the step's); the lines added and removed per file to `$4` when it is not empty, left out if git cannot count them.
 */
export const changeScript = `command -p rm -f "$3"
[ -z "$4" ] || command -p rm -f "$4"
git diff -M --text --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/ "$1" "$2" || fail diff
git diff --raw -z --no-renames --no-abbrev "$1" "$2" >"$3" || fail raw
bytes=$(command -p wc -c <"$3") || fail raw
if [ "$bytes" -gt "$5" ]; then
  printf 'usine-raw-bytes %s' "$bytes" >&2
  false || fail raw-size
fi
[ -z "$4" ] || git diff --numstat -z -M --no-color --no-ext-diff --no-textconv "$1" "$2" >"$4" || command -p rm -f "$4"
exit 0
`
