/**
 * The `sh` program that reads an agent's git data as files, never through git (ADR 0053): `$1` is the worktree,
 * `$2` the daemon's harvest repository. It refuses a worktree, `.git`, `objects` or `HEAD` that is not what usine
 * made (a link, a `.git` file naming another gitdir), resolves `HEAD` to a commit id by reading the ref file or
 * `packed-refs` (a branch name of plain characters only), and copies the objects the agent wrote: loose objects
 * whose names are ids, and pack data files, never an index, alternates list or anything else. It prints
 * `head <sha>`, one `loose <sha>` per loose object and one `pack <name>` per pack; a refusal goes to stderr as one fixed sentence and exits 3.
 * Its messages never quote what it read.
 */
export const collectScript = `set -u
wt=$1; repo=$2; g=$wt/.git
fail() { printf '%s\\n' "$1" >&2; exit 3; }
[ -d "$wt" ] && [ ! -L "$wt" ] || fail "the worktree is gone or was replaced by a link"
[ -d "$g" ] && [ ! -L "$g" ] || fail "the worktree's .git is no longer the folder usine made (a file or a link took its place)"
[ -d "$g/objects" ] && [ ! -L "$g/objects" ] || fail "the worktree's .git/objects is not a folder"
[ -f "$g/HEAD" ] && [ ! -L "$g/HEAD" ] || fail "the worktree's .git/HEAD is not a file"
head=
IFS= read -r head <"$g/HEAD" || [ -n "$head" ] || fail "the worktree's .git/HEAD is empty"
case $head in
  "ref: refs/heads/"*)
    ref=\${head#ref: }
    case $ref in *..*|*[!A-Za-z0-9._/-]*|*/) fail "the worktree's HEAD names a branch usine does not read" ;; esac
    head=
    if [ -f "$g/$ref" ] && [ ! -L "$g/$ref" ]; then
      IFS= read -r head <"$g/$ref" || true
    elif [ -f "$g/packed-refs" ] && [ ! -L "$g/packed-refs" ]; then
      while IFS=' ' read -r sha name; do
        if [ "$name" = "$ref" ]; then head=$sha; break; fi
      done <"$g/packed-refs"
    fi
    ;;
esac
case $head in
  *[!0-9a-f]*|"") fail "the worktree's HEAD does not name a commit" ;;
esac
[ \${#head} -eq 40 ] || fail "the worktree's HEAD does not name a commit"
cd "$g/objects" || fail "the worktree's .git/objects cannot be read"
for d in [0-9a-f][0-9a-f]; do
  [ -d "$d" ] && [ ! -L "$d" ] || continue
  for f in "$d"/*; do
    n=\${f#*/}
    case $n in *[!0-9a-f]*) continue ;; esac
    [ \${#n} -eq 38 ] && [ -f "$f" ] && [ ! -L "$f" ] || continue
    command -p mkdir -p "$repo/objects/$d" && command -p cp "$f" "$repo/objects/$f" || fail "copying the agent's objects failed"
    printf 'loose %s%s\n' "$d" "$n"
  done
done
if [ -d pack ] && [ ! -L pack ]; then
  for f in pack/pack-*.pack; do
    n=\${f#pack/pack-}; n=\${n%.pack}
    case $n in *[!0-9a-f]*|"") continue ;; esac
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    command -p mkdir -p "$repo/objects/pack" && command -p cp "$f" "$repo/objects/$f" || fail "copying the agent's packs failed"
    printf 'pack %s\\n' "$f"
  done
fi
command -p find "$repo/objects" -type l -delete 2>/dev/null
printf 'head %s\\n' "$head"
`
