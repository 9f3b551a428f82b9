import { collectScript } from "./collectScript"
import { commitLeftoversScript } from "./commitLeftoversScript"

/**
 * Everything `AttemptGit.collect` does on the Worker, as one `runGitScript` (issue 31: one process, where it took
 * three on the happy path and up to five): `$1` the worktree, `$2` the harvest repository (absent: the daemon
 * removed it), `$3` the repository it borrows from, `$4` the line of its alternates, `$5` the message of the
 * leftovers' commit. A fresh bare repository whose objects borrow `$3`'s only (step `init`); the agent's git data
 * read as files by `collectScript`, in a subshell whose exit status and stderr are its own (step `read-work`,
 * exit 3 a refusal); the loose copies `$3` holds already removed (step `borrowed`: one named after an object of
 * the start could stand in for the base's content in the guards' diff); each copied pack indexed from its own data
 * (step `index-pack`: every id computed, none taken on trust); then `commitLeftoversScript`.
 */
export const harvestRepoScript = `git init --quiet --bare "$2" || fail init
command -p rm -rf "$2/hooks" || fail init
printf '%s\\n' "$4" >"$2/objects/info/alternates" || fail init
(
${collectScript}) >"$2/usine-collected" || fail read-work
listed=$2/usine-collected
agent_head=
: >"$2/usine-loose"
while read -r kind value; do
  case $kind in
    head) agent_head=$value ;;
    loose) printf '%s\\n' "$value" >>"$2/usine-loose" ;;
  esac
done <"$listed"
if [ -s "$2/usine-loose" ]; then
  git --git-dir="$3" cat-file --batch-check='%(objectname)' <"$2/usine-loose" >"$2/usine-borrowed" || fail borrowed
  while IFS= read -r id; do
    case $id in *[!0-9a-f]*|"") continue ;; esac
    [ \${#id} -eq 40 ] || continue
    command -p rm -f "$2/objects/\${id%"\${id#??}"}/\${id#??}" || fail borrowed
  done <"$2/usine-borrowed"
fi
while read -r kind value; do
  [ "$kind" = pack ] || continue
  git --git-dir="$2" index-pack "$2/objects/$value" >/dev/null || fail index-pack
done <"$listed"
export GIT_DIR="$2"
set -- "$agent_head" "$1" "$5"
${commitLeftoversScript}`
