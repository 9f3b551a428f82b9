/**
 * The daemon git commands that read the collected work and build the commit that leaves (issue 31), as one
 * `runGitScript` in the harvest repository (`GIT_DIR`): `$1` the Attempt's base, `$2` the collected head, `$3` its
 * tree, `$4` the parent of the commit to build (empty: the merge-base), `$5` its message (empty: build nothing),
 * `$6` the file that takes the agent's commit subjects (empty: none). The identity and dates of the commit come
 * from the environment. Prints `base <merge-base>`, the commits since it oldest first, one a line, then, when a
 * commit is asked for, `built <sha>`, or `built -` when the tree is the parent's: nothing to build. The subjects,
 * text the agent wrote, never reach stdout: a failure to list them leaves no file.
 */
export const workSinceScript = `base=$(git merge-base "$1" "$2") || fail merge-base
printf 'base %s\\n' "$base"
git rev-list --reverse "$base..$2" || fail rev-list
[ -n "$5" ] || exit 0
parent=\${4:-$base}
[ -z "$6" ] || command -p rm -f "$6"
parent_tree=$(git rev-parse --verify "$parent^{tree}") || fail parent-tree
if [ "$parent_tree" = "$3" ]; then
  printf 'built -\\n'
  exit 0
fi
built=$(git commit-tree "$3" -p "$parent" -m "$5") || fail commit-tree
printf 'built %s\\n' "$built"
[ -z "$6" ] || git log --reverse --format='%h %s' "$parent..$2" >"$6" || command -p rm -f "$6"
exit 0
`
