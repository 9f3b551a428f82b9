/**
 * The daemon git commands that commit what the agent left uncommitted, in the harvest repository (`GIT_DIR`) with
 * the daemon's own index (`GIT_INDEX_FILE`), as one `runGitScript`: `$1` the agent's HEAD as `collectScript` read
 * it, `$2` the worktree, and `$3` the message. The agent's HEAD must be a commit the
 * repository holds (step `head`); its tree, then its files (no filter, hook or attribute program runs: the config
 * is the daemon's) are staged (steps `read-tree`, `add`: what the worktree holds decides those), and committed on
 * top when they differ. Prints `<collected head> <its tree>`.
 */
export const commitLeftoversScript = `head=$(git rev-parse --verify --quiet "$1^{commit}") || fail head
git --work-tree="$2" read-tree "$head" || fail read-tree
git --work-tree="$2" add --all || fail add
written=$(git write-tree) || fail write-tree
tree=$(git rev-parse --verify "$head^{tree}") || fail head-tree
collected=$head
if [ "$written" != "$tree" ]; then
  collected=$(git commit-tree "$written" -p "$head" -m "$3") || fail commit-tree
fi
printf '%s %s\\n' "$collected" "$written"
`
